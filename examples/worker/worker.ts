// A remote agent in ~30 lines: it thinks, calls its own tool, and answers (PROTOCOL.md Part II).
import { connectWorker, createToolbox, type Agent } from '@interthought/agent';
import { z } from 'zod';

const shout = { name: 'shout', description: 'Upper-cases a text', inputSchema: z.object({ text: z.string() }),
  execute: async (input: unknown) => { const { text } = input as { text: string }; return { output: { text: text.toUpperCase() }, text: text.toUpperCase() }; } };

const agent: Agent = {
  name: 'shouter',
  description: 'Shouts the task back (a worker example)',
  availability: () => ({ available: true }),
  async run({ task, chain, sink, tools, signal }) {
    const say = async (kind: 'thought' | 'tool_call' | 'observation' | 'final_answer', text: string, tool?: string, result?: unknown) => {
      const step = sink.start(kind, tool === undefined ? undefined : { tool });
      for (const word of text.split(/(?<= )/u)) await step.write(word);
      step.end(result === undefined ? undefined : { result });
    };
    // The agent sees the chain and continues it: after an approved call, only the tool is left to run.
    if (chain.at(-1)?.kind !== 'tool_call') {
      await say('thought', `I will shout "${task}".`);
      await say('tool_call', JSON.stringify({ text: task }), 'shout');
    }
    const result = await tools.get('shout')!.execute({ text: task }, signal); // waits until the server clears the call
    await say('observation', result.text, 'shout', result.output);
    await say('final_answer', `Shouted: ${result.text}`);
  },
};

const worker = await connectWorker({ url: process.env.INTERTHOUGHT_URL ?? 'http://127.0.0.1:3000', token: process.env.INTERTHOUGHT_AGENT_TOKEN ?? 'dev-token',
  agents: [agent], tools: createToolbox([shout]), onEvent: (event) => console.log(event.type, 'runId' in event ? event.runId : '') });
process.once('SIGINT', () => void worker.close());
