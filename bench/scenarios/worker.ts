import type { StreamResult } from '../load/jobs.js';
import { FirehoseWorker } from '../harness/worker-process.js';
import { parseFirehoseTask } from '../../apps/server/src/agents/firehose/firehose-params.js';
import { check, describeDisruption, figure, measureStream, millis, perSecond, ratio, streamSpec, times, type BenchContext, type Scenario, type ScenarioReport } from './scenario.js';

/** The worker's token and the name it serves the firehose under (in-process names cannot be registered). */
const TOKEN = 'bench-worker-token';
const WORKER_AGENT = 'firehose-worker';

/** The server of this scenario: /ws/agents on, and the per-worker frame rate out of the way (it is what is measured). */
const WORKER_SERVER_ENV: Record<string, string> = {
  INTERTHOUGHT_AGENT_TOKENS: TOKEN,
  INTERTHOUGHT_AGENT_FRAMES_PER_SEC: '1000000',
  INTERTHOUGHT_AGENT_FRAME_BURST: '1000000',
};

type Placement = 'in process' | 'worker';
type Level = number | 'max';
const levelName = (level: Level) => (level === 'max' ? 'saturation' : `${perSecond(level)} offered`);

/**
 * Stream through the worker a while, unmeasured, as the harness does through every new server:
 * the server's warm-up runs only the in-process agent, so the worker process and the server's
 * /ws/agents path would otherwise meet the first measured level cold (their JIT, their first
 * socket reads), and the backlog that leaves lasted past the level's warm-up.
 */
async function warmWorkerPath(context: BenchContext, wsUrl: string): Promise<void> {
  const { serverWarmUpMs } = context.scale;
  if (serverWarmUpMs <= 0) return;
  context.log('worker: warming up the worker path');
  const stream = { ...streamSpec(context, wsUrl, context.scale.worker, context.scale.worker.offeredPerSec), agent: WORKER_AGENT, warmupMs: 0, measureMs: serverWarmUpMs };
  await context.runLoad({ kind: 'stream', stream }, 60_000 + serverWarmUpMs);
}

/**
 * The same firehose plan streamed by the agent in the server's process and by the same agent in a
 * worker process over /ws/agents, to the same viewers of one server: what the hop costs.
 */
export const workerScenario: Scenario = {
  name: 'worker',
  title: 'Remote agent worker',
  async run(context): Promise<ScenarioReport> {
    const scale = context.scale.worker;
    const levels: Level[] = [scale.offeredPerSec, 'max'];
    const runs = new Map<string, StreamResult>();
    const key = (placement: Placement, level: Level) => `${placement} ${level}`;
    await context.withTarget('interthought', { label: 'interthought (workers on)', env: WORKER_SERVER_ENV }, async (target) => {
      const worker = await FirehoseWorker.start(target.httpUrl, TOKEN, WORKER_AGENT);
      try {
        await warmWorkerPath(context, target.wsUrl);
        for (const level of levels) {
          for (const placement of ['in process', 'worker'] as const) {
            context.log(`worker: ${placement}, ${scale.sessions} session × ${scale.subscribers} viewers, ${levelName(level)}`);
            const base = streamSpec(context, target.wsUrl, scale, level);
            // A paced level is also measured from each delta's due time: the one stamp both placements share.
            const paced = level === 'max' ? {} : { pacedPerSec: parseFirehoseTask(base.task).rate };
            const spec = { ...base, ...paced, agent: placement === 'worker' ? WORKER_AGENT : 'firehose' };
            runs.set(key(placement, level), await measureStream(context, spec, `${placement} at ${levelName(level)}`));
          }
        }
      } finally {
        await worker.stop();
      }
    });
    const pick = (level: Level, read: (result: StreamResult) => number | null) => {
      const local = runs.get(key('in process', level));
      const remote = runs.get(key('worker', level));
      return { value: remote ? read(remote) : null, baseline: local ? read(local) : null };
    };
    const fromDue = (result: StreamResult) => result.scheduledLatency ?? null;
    const figures = levels.flatMap((level) => [
      figure(`${levelName(level)}: delivered`, 'msgs/s', 'higher', pick(level, (result) => result.deliveredPerSec), 'in process'),
      figure(`${levelName(level)}: latency p50`, 'ms', 'lower', pick(level, (result) => result.latency.p50), 'in process'),
      figure(`${levelName(level)}: latency p99`, 'ms', 'lower', pick(level, (result) => result.latency.p99), 'in process'),
      ...(level === 'max'
        ? []
        : [
            figure(`${levelName(level)}: latency p50 from due time`, 'ms', 'lower', pick(level, (result) => fromDue(result)?.p50 ?? null), 'in process'),
            figure(`${levelName(level)}: latency p99 from due time`, 'ms', 'lower', pick(level, (result) => fromDue(result)?.p99 ?? null), 'in process'),
          ]),
    ]);
    const saturation = pick('max', (result) => result.deliveredPerSec);
    const added = (values: { value: number | null; baseline: number | null }) =>
      values.value === null || values.baseline === null ? null : Math.max(0, values.value - values.baseline);
    const addedP99 = added(pick(scale.offeredPerSec, (result) => fromDue(result)?.p99 ?? null));
    const addedWriteP99 = added(pick(scale.offeredPerSec, (result) => result.latency.p99));
    return {
      figures,
      targets: [
        check('worker-throughput', 'Worker throughput at saturation vs the agent in process', ratio(saturation.value, saturation.baseline), { min: 0.9 }, times),
        check('worker-p99', `Worker p99 latency added at ${perSecond(scale.offeredPerSec)} (from due time)`, addedP99, { max: 1 }, millis),
      ],
      notes: [
        ...[...runs.entries()].flatMap(([name, result]) => {
          const remark = describeDisruption(result, name);
          return remark ? [remark] : [];
        }),
        `The baseline column is the firehose agent in the server's process; the Interthought column the same agent served by a worker process through /ws/agents (the \`connectWorker\` SDK), on the same server.`,
        `${scale.sessions} session × ${scale.subscribers} viewers; offered rates count delivered frames (per-session rate × viewers), as in the throughput scenario. "Latency" is the agent's write stamp → a viewer's receive; "from due time" is when the delta was due on the agent's own schedule → a viewer's receive, which counts the stalls of the server's loop in both placements (the target's figure; see bench/README.md "The worker scenario").`,
        `Added p99 on write stamps at ${perSecond(scale.offeredPerSec)}: ${addedWriteP99 === null ? 'n/a' : millis(addedWriteP99)}.`,
      ],
      details: Object.fromEntries(runs),
    };
  },
};
