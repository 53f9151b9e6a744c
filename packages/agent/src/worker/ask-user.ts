import { ASK_USER_TOOL, parseAskUserInput, type AnswerResult, type AskUserInput, type Step, type UnansweredResult } from '@interthought/protocol';
import type { AgentRunContext } from '../agent.js';
import { runServerTool } from './worker-agent.js';

/**
 * Ask the user and end the run (PROTOCOL.md §25.1, Part II §A6.3): a `tool.run` of the server's
 * `ask_user`. The server writes the call and the session waits for the answer, so it answers
 * `RUN_ABORTED` and aborts the run; this resolves once it has, and the agent returns (the run
 * ends as aborted: no `run.fail`). The answer ends the next `run.start`'s chain (`answerAtHead`).
 * Rejects with a `ServerToolError` for input that is no question (`BAD_TOOL_INPUT`) or a server
 * without questions (`TOOL_NOT_FOUND`); it is for runs of an agent worker, as `delegate` is.
 */
export async function askUser(context: AgentRunContext, input: AskUserInput): Promise<void> {
  try {
    const result = await runServerTool(context, ASK_USER_TOOL, input);
    // The server ran the call instead of stopping at it: it does not ask (PROTOCOL.md §25.1).
    throw new Error(`The server did not stop the run to ask the user; its ask_user answered: ${result.text}`);
  } catch (error) {
    // Aborted is what asking does (or the session moved on meanwhile): either way the run is over.
    if (context.signal.aborted) return;
    throw error;
  }
}

/** The user's answer to a question, as the observation after its `ask_user` call says it. */
export type UserAnswer =
  | { question: string; choices?: string[]; answered: true; answer: string; choice?: number; by: string; byName?: string }
  | { question: string; choices?: string[]; answered: false; reason: string };

/**
 * The answer when `chain` (a run's, root first) ends with one: the observation of an `ask_user`
 * call right after the call (PROTOCOL.md §25.2). Undefined when the chain ends otherwise, e.g. with
 * the `Error: …` observation of a call whose input was no question.
 */
export function answerAtHead(chain: readonly Step[]): UserAnswer | undefined {
  const observation = chain[chain.length - 1];
  const call = chain[chain.length - 2];
  if (observation?.kind !== 'observation' || observation.tool !== ASK_USER_TOOL) return undefined;
  if (call?.kind !== 'tool_call' || call.tool !== ASK_USER_TOOL) return undefined;
  const asked = parseAskUserInput(call.content);
  if (asked === undefined) return undefined;
  const result = observation.result as Partial<AnswerResult & UnansweredResult> | undefined;
  const question = { question: asked.question, ...(asked.choices === undefined ? {} : { choices: asked.choices }) };
  if (result?.unanswered === true) return { ...question, answered: false, reason: typeof result.reason === 'string' ? result.reason : 'unanswered' };
  return {
    ...question,
    answered: true,
    answer: typeof result?.answer === 'string' ? result.answer : observation.content,
    ...(typeof result?.choice === 'number' ? { choice: result.choice } : {}),
    by: typeof result?.by === 'string' ? result.by : (observation.by ?? ''),
    ...(typeof result?.byName === 'string' ? { byName: result.byName } : {}),
  };
}
