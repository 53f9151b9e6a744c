/**
 * The firehose agent, unchanged, served by a worker process over /ws/agents under another name:
 * `node --import tsx bench/harness/firehose-worker.ts <url> <token> <name>`. Prints
 * "registered <workerId>" once the server took it; the harness kills it when the scenario is done.
 */
import { connectWorker } from '@interthought/agent';
import { createFirehoseAgent } from '../../apps/server/src/agents/firehose/firehose-agent.js';

const [url, token, name] = process.argv.slice(2);
if (url === undefined || token === undefined || name === undefined) throw new Error('usage: firehose-worker.ts <url> <token> <name>');
const worker = await connectWorker({ url, token, agents: [{ agent: createFirehoseAgent(), name }], reconnect: false });
process.stdout.write(`registered ${worker.workerId ?? ''}\n`);
process.once('SIGTERM', () => void worker.close().then(() => process.exit(0)));
await worker.closed;
