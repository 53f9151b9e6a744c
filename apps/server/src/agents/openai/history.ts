import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionMessageParam,
  ChatCompletionMessageFunctionToolCall,
} from 'openai/resources/chat/completions';
import type { ChainStep } from './chain-recorder.js';
import type { ThoughtReplay } from './config.js';

export const SYSTEM_PROMPT = [
  'You are a careful assistant that works step by step and may call the tools you are given.',
  'Call a tool whenever it gives a more reliable result than reasoning alone; when you know the answer, reply with the final answer and no tool call.',
  'The user watches every step and may correct any of them. A correction is authoritative: continue from the corrected content and do not repeat the replaced version.',
].join(' ');

/** The tool call id of a `tool_call` step: derived from its step id, so a rebuilt history pairs calls and results the same way every time. */
export function toolCallId(stepId: string): string {
  return `call_${stepId}`;
}

/**
 * The `tool_call` steps of the chain that no observation answers yet, in chain order. A chain
 * that ends in a (corrected) tool call leaves one here: the agent runs it before the next model turn.
 */
export function unansweredToolCalls(chain: readonly ChainStep[]): ChainStep[] {
  const waiting: ChainStep[] = [];
  for (const step of chain) {
    if (step.kind === 'tool_call') waiting.push(step);
    else if (step.kind === 'observation') takeAnsweredCall(waiting, step.tool);
  }
  return waiting;
}

/**
 * The chat messages for a model turn: the system prompt (with the lessons of earlier corrections
 * as its last section, PROTOCOL.md §26.4), the user's task, then the chain with corrections in
 * place. The lessons step is the server's, already said in the system message: no turn of its own.
 */
export function buildMessages(task: string, chain: readonly ChainStep[], replay: ThoughtReplay, system = SYSTEM_PROMPT, lessons?: string): ChatCompletionMessageParam[] {
  const history = new HistoryBuilder(replay);
  for (const step of chain) if (step.lessons === undefined) history.add(step);
  const content = lessons === undefined ? system : `${system}\n\n${lessons}`;
  return [{ role: 'system', content }, { role: 'user', content: task }, ...history.finish()];
}

/** An observation answers the earliest waiting call of its tool (or the earliest call, if none matches). */
function takeAnsweredCall<Call extends { tool?: string | undefined }>(waiting: Call[], tool: string | undefined): Call | undefined {
  const at = waiting.findIndex((call) => call.tool === tool);
  return waiting.splice(at >= 0 ? at : 0, 1)[0];
}

/** A call of a flushed assistant message that still needs its `tool` message. */
interface WaitingCall {
  id: string;
  tool: string;
}

interface AssistantTurn {
  /** Reasoning and text in the order the model produced them. */
  parts: Array<{ kind: 'thought' | 'text'; text: string }>;
  toolCalls: ChatCompletionMessageFunctionToolCall[];
}

/**
 * Folds chain steps into chat messages. One model turn (reasoning, text, tool calls: everything up
 * to the tool results, the final answer or a correction) becomes one assistant message; each
 * observation a `tool` message right after it. Correction notes wait
 * until every call of the turn has its result, because providers reject anything between an
 * assistant's `tool_calls` and the matching `tool` messages.
 */
class HistoryBuilder {
  readonly #messages: ChatCompletionMessageParam[] = [];
  #turn: AssistantTurn | undefined;
  #waiting: WaitingCall[] = [];
  readonly #notes: string[] = [];

  constructor(private readonly replay: ThoughtReplay) {}

  add(step: ChainStep): void {
    if (step.kind === 'user_message') {
      this.#addUserTurn(step);
      return;
    }
    if (step.kind === 'observation') {
      this.#flushTurn();
      this.#addObservation(step);
    } else {
      // Everything after a corrected step was generated after the correction, in a new model
      // turn: close the turn before it and tell the model about the correction there.
      if (this.#notes.length) this.#flushTurn();
      this.#settleUnansweredCalls();
      const turn = this.#openTurn();
      if (step.kind === 'tool_call') turn.toolCalls.push(toolCallOf(step));
      else turn.parts.push({ kind: step.kind === 'thought' ? 'thought' : 'text', text: step.content });
      if (step.kind === 'final_answer') this.#flushTurn();
    }
    if (step.status === 'corrected' || step.correctionOf !== undefined) this.#notes.push(correctionNote(step));
  }

  finish(): ChatCompletionMessageParam[] {
    this.#flushTurn();
    this.#settleUnansweredCalls();
    this.#emitNotesWhenSettled();
    return this.#messages;
  }

  #openTurn(): AssistantTurn {
    this.#turn ??= { parts: [], toolCalls: [] };
    return this.#turn;
  }

  #flushTurn(): void {
    const turn = this.#turn;
    if (!turn) return;
    this.#turn = undefined;
    this.#messages.push(assistantMessage(turn, this.replay));
    for (const call of turn.toolCalls) this.#waiting.push({ id: call.id, tool: call.function.name });
    this.#emitNotesWhenSettled();
  }

  #addObservation(step: ChainStep): void {
    const call = takeAnsweredCall(this.#waiting, step.tool);
    if (call) this.#messages.push({ role: 'tool', tool_call_id: call.id, content: step.content });
    else this.#messages.push({ role: 'user', content: `Result of the ${step.tool ?? 'tool'} tool: ${step.content}` });
    this.#emitNotesWhenSettled();
  }

  /**
   * What the user said is a user turn of the history, after the model turn before it is closed and
   * answered. An edited message simply reads as edited: it is the user's own text.
   */
  #addUserTurn(step: ChainStep): void {
    this.#flushTurn();
    this.#settleUnansweredCalls();
    this.#emitNotesWhenSettled();
    this.#messages.push({ role: 'user', content: step.content });
  }

  /** A call the chain never answered (only possible mid-chain) still needs a `tool` message to keep the history valid. */
  #settleUnansweredCalls(): void {
    if (this.#turn || !this.#waiting.length) return;
    for (const call of this.#waiting) {
      this.#messages.push({ role: 'tool', tool_call_id: call.id, content: 'The tool was not run.' });
    }
    this.#waiting = [];
    this.#emitNotesWhenSettled();
  }

  #emitNotesWhenSettled(): void {
    if (this.#turn || this.#waiting.length || !this.#notes.length) return;
    this.#messages.push({ role: 'user', content: this.#notes.join('\n') });
    this.#notes.length = 0;
  }
}

function toolCallOf(step: ChainStep): ChatCompletionMessageFunctionToolCall {
  return { id: toolCallId(step.stepId), type: 'function', function: { name: step.tool ?? '', arguments: step.content } };
}

function assistantMessage(turn: AssistantTurn, replay: ThoughtReplay): ChatCompletionMessageParam {
  const textOf = (kind: 'thought' | 'text'): string =>
    turn.parts.flatMap((part) => (part.kind === kind ? [part.text] : [])).join('\n\n');
  const content =
    replay === 'think-tags'
      ? turn.parts.map((part) => (part.kind === 'thought' ? `<think>\n${part.text}\n</think>` : part.text)).join('\n\n')
      : textOf('text');
  // The message must carry content unless it carries tool calls.
  const message: ChatCompletionAssistantMessageParam & { reasoning_content?: string } = {
    role: 'assistant',
    content: content || (turn.toolCalls.length ? null : ''),
  };
  if (turn.toolCalls.length) message.tool_calls = turn.toolCalls;
  // Always present in this mode: DeepSeek refuses a tool-call message without it, even empty.
  if (replay === 'reasoning-content') message.reasoning_content = textOf('thought');
  return message;
}

/** What the model is told about a step the user corrected. */
function correctionNote(step: ChainStep): string {
  const tool = step.tool ?? 'tool';
  const sentences: string[] = [];
  switch (step.kind) {
    case 'thought':
      // Quoted, because some chat templates drop earlier reasoning from the prompt.
      sentences.push(`The user corrected your reasoning; it now reads: "${step.content}".`);
      break;
    case 'action':
      sentences.push('The user corrected your plan; the corrected text is shown above.');
      break;
    case 'tool_call':
      sentences.push(`The user corrected the input of your ${tool} call to ${step.content}; the result above comes from the corrected input.`);
      break;
    case 'observation':
      sentences.push(`The user corrected the result of the ${tool} tool; the corrected result is shown above.`);
      break;
    case 'final_answer':
      sentences.push('The user corrected your answer; the corrected answer is shown above.');
      break;
    case 'user_message':
      // Never reached: a user turn is added as the user's text, without a note (`#addUserTurn`).
      break;
    default: {
      const unknownKind: never = step.kind;
      throw new Error(`Unknown step kind "${String(unknownKind)}".`);
    }
  }
  const note = step.correction?.note?.trim();
  if (note) sentences.push(`Their note: ${note}`);
  sentences.push('Continue from the corrected step.');
  return sentences.join(' ');
}
