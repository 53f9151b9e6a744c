import { ASK_USER_TOOL } from '@interthought/protocol';
import type { Agent, AgentRunContext } from '@interthought/agent';
import { streamStep } from '../../../src/agents/stream-text.js';
import { observeTool } from '../../../src/agents/tool-steps.js';
import { TestAgent } from '../support/test-agents.js';

/*
 * `asker` (PROTOCOL.md §25.1): a scripted agent driven by its chain, like a real one. It thinks,
 * asks the user with `ask_user`, and answers with what the call's observation says. A task with
 * "badly" makes it ask with input `ask_user` refuses, so its call is answered like any tool's bad input.
 */

/** What `asker` asks, and the choices it offers. */
export const ASKED = { question: 'Which number should 25 replace?', choices: ['20', '5'] } as const;

/** The thought `asker` starts with. */
export const ASKER_THOUGHT = 'I need to know which number to replace.';

/** The `asker`'s final answer: what it was told. */
export function askerAnswer(observation: string): string {
  return `Told: ${observation}`;
}

function askInput(task: string): string {
  return task.includes('badly') ? JSON.stringify({ question: '', choices: ['same', 'same'] }) : JSON.stringify(ASKED);
}

/** Runs from the head of its chain: thought, `ask_user` call, the call's observation, a final answer built on it. */
export function askerAgent(): Agent {
  return new TestAgent('asker', async (context: AgentRunContext) => {
    let last: { kind: string; content: string; tool?: string } | undefined = context.chain.at(-1);
    for (;;) {
      if (last === undefined) {
        await streamStep(context.sink, 'thought', ASKER_THOUGHT);
        last = { kind: 'thought', content: ASKER_THOUGHT };
      } else if (last.kind === 'thought') {
        // A valid question ends the run here: the server stops it and writing more is refused.
        const input = askInput(context.task);
        await streamStep(context.sink, 'tool_call', input, { tool: ASK_USER_TOOL });
        last = { kind: 'tool_call', content: input, tool: ASK_USER_TOOL };
      } else if (last.kind === 'tool_call') {
        // As every agent answers a call its chain ends with: input the tool refuses is an `Error:` observation.
        const tool = last.tool ?? '';
        const check = context.tools.checkInput(tool, last.content);
        const text = check.ok ? (await observeTool(context, tool, check.input), 'ran') : `Error: ${check.message}`;
        if (!check.ok) await streamStep(context.sink, 'observation', text, { tool, result: { error: check.message } });
        last = { kind: 'observation', content: text };
      } else if (last.kind === 'observation') {
        await streamStep(context.sink, 'final_answer', askerAnswer(last.content));
        return;
      } else return;
    }
  });
}
