import { ASK_USER_TOOL, answerResult, parseAskUserInput, type Step, type StepKind } from '@interthought/protocol';
import { createDemoAgent } from '../../../src/agents/demo/index.js';
import { createDefaultTools } from '../../../src/tools/index.js';
import { RecordingSink, type RecordedStep } from '../../support/recording-sink.js';

/** Run the demo agent on a task and a chain with real tools; returns what it streamed. */
export async function runDemo(task: string, chain: readonly Step[] = []): Promise<RecordingSink> {
  const controller = new AbortController();
  const sink = new RecordingSink({ signal: controller.signal });
  await createDemoAgent().run({ task, chain, options: {}, tools: createDefaultTools(), sink, signal: controller.signal });
  return sink;
}

/** The chain the core would hand over: the recorded steps as completed steps, parent to child. */
export function asChain(steps: readonly RecordedStep[]): Step[] {
  return steps.map((recorded, index) => ({
    stepId: recorded.stepId,
    parentId: index === 0 ? null : (steps[index - 1]?.stepId ?? null),
    index,
    kind: recorded.kind,
    status: 'completed',
    content: recorded.content,
    revision: 0,
    ...(recorded.tool === undefined ? {} : { tool: recorded.tool }),
    ...(recorded.result === undefined ? {} : { result: recorded.result }),
  }));
}

/**
 * The chain after a user corrects its step of `kind` (the first one, or the `nth`) as the core
 * builds it: the steps before it, then the new step with status `corrected`, `correctionOf`
 * and `correction { previousContent, note, at }`. Later steps are invalidated, so not on it.
 */
export function correct(chain: readonly Step[], kind: StepKind, content: string, options: { note?: string; nth?: number } = {}): Step[] {
  const matching = chain.filter((step) => step.kind === kind);
  const target = matching[options.nth ?? 0];
  if (!target) throw new Error(`The chain has no ${kind} step to correct.`);
  const { result: _result, ...kept } = target;
  const corrected: Step = {
    ...kept,
    stepId: `${target.stepId}-fix`,
    status: 'corrected',
    content,
    revision: target.revision + 1,
    correctionOf: target.stepId,
    correction: {
      previousContent: target.content,
      at: '2025-01-01T00:00:00.000Z',
      ...(options.note === undefined ? {} : { note: options.note }),
    },
  };
  return [...chain.slice(0, target.index), corrected];
}

/** Run the task once, correct a step, and run the agent again on the corrected chain. */
export async function runCorrected(
  task: string,
  kind: StepKind,
  content: (original: string) => string,
  options: { note?: string; nth?: number } = {},
): Promise<{ first: RecordingSink; chain: Step[]; second: RecordingSink }> {
  const first = await runDemo(task);
  const original = asChain(first.steps);
  const target = original.filter((step) => step.kind === kind)[options.nth ?? 0];
  if (!target) throw new Error(`The first run has no ${kind} step.`);
  const chain = correct(original, kind, content(target.content), options);
  return { first, chain, second: await runDemo(task, chain) };
}

/** The chain with what a run recorded appended as completed steps (ids kept unique across runs). */
export function extend(chain: readonly Step[], recorded: readonly RecordedStep[]): Step[] {
  const steps = [...chain];
  for (const step of asChain(recorded)) {
    const parent = steps[steps.length - 1];
    steps.push({ ...step, stepId: `t${steps.length}-${step.stepId}`, parentId: parent?.stepId ?? null, index: steps.length });
  }
  return steps;
}

/** The chain with the user's message at its head, as `session.message` puts it there (a `user_message` step). */
export function withMessage(chain: readonly Step[], text: string): Step[] {
  const parent = chain[chain.length - 1];
  const message: Step = {
    stepId: `message-${chain.length}`,
    parentId: parent?.stepId ?? null,
    index: chain.length,
    kind: 'user_message',
    status: 'completed',
    content: text,
    revision: 0,
  };
  return [...chain, message];
}

/**
 * A conversation: the task's run, then each message in turn with the agent's answer to it.
 * Returns every turn's recording (the task's first) and the chain the conversation left.
 */
export async function converse(task: string, messages: readonly string[]): Promise<{ turns: RecordingSink[]; chain: Step[] }> {
  const first = await runDemo(task);
  const turns = [first];
  let chain = asChain(first.steps);
  for (const text of messages) {
    chain = withMessage(chain, text);
    const turn = await runDemo(task, chain);
    turns.push(turn);
    chain = extend(chain, turn.steps);
  }
  return { turns, chain };
}

/** A step appended at the chain's head, as the core appends the ones it writes itself (an answer, a refusal). */
function appended(chain: readonly Step[], step: Pick<Step, 'kind' | 'content'> & Partial<Step>): Step[] {
  const parent = chain[chain.length - 1];
  return [...chain, { stepId: `server-${chain.length}`, parentId: parent?.stepId ?? null, index: chain.length, status: 'completed', revision: 0, ...step }];
}

/**
 * The chain after the user answered the question at its head (PROTOCOL.md §25.2): the `ask_user`
 * call's observation as `input.provide` appends it, `result` made by the protocol's `answerResult`.
 */
export function answered(chain: readonly Step[], text: string): Step[] {
  const call = chain[chain.length - 1];
  if (call?.kind !== 'tool_call' || call.tool !== ASK_USER_TOOL) throw new Error('The chain does not end in an ask_user call.');
  const { choices } = parseAskUserInput(call.content) ?? {};
  return appended(chain, { kind: 'observation', tool: ASK_USER_TOOL, content: text, by: 'user-1', result: answerResult(text, 'user-1', undefined, choices) });
}

/** The chain after the question at its head timed out (PROTOCOL.md §25.2). */
export function unanswered(chain: readonly Step[]): Step[] {
  return appended(chain, { kind: 'observation', tool: ASK_USER_TOOL, content: 'The user did not answer in time.', result: { unanswered: true, reason: 'timed out' } });
}

/**
 * The chain a run would have left up to its first call of `tool`, then that call refused with
 * `reason` (PROTOCOL.md §19.3 `tool.reject`): the refusal observation the core appends.
 */
export function refusedAt(chain: readonly Step[], tool: string, reason: string, by = 'user-1'): Step[] {
  const at = chain.findIndex((step) => step.kind === 'tool_call' && step.tool === tool);
  if (at < 0) throw new Error(`The chain has no ${tool} call.`);
  return appended(chain.slice(0, at + 1), {
    kind: 'observation',
    tool,
    content: `The user refused this ${tool} call, so it was not run. Reason: ${reason}`,
    result: { refused: true, by, reason },
  });
}
