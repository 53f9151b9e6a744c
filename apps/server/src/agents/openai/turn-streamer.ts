import type { StepKind } from '@interthought/protocol';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { StepSink, StepWriter } from '@interthought/agent';
import { OpenAIEndpointError } from './endpoint-errors.js';
import { ThinkTagSplitter, type ContentSegment } from './think-tags.js';

type Delta = ChatCompletionChunk.Choice.Delta & {
  /** DeepSeek, Qwen (DashScope), vLLM and llama.cpp stream reasoning here… */
  reasoning_content?: string | null;
  /** …and OpenRouter and newer vLLM here. */
  reasoning?: string | null;
};
type ToolCallFragment = ChatCompletionChunk.Choice.Delta.ToolCall;

/** A tool call of this turn as its fragments arrive. */
interface ToolCallDraft {
  name: string;
  fragments: string[];
  writer?: StepWriter;
  written: number;
}

/** How a model turn ended: with the final answer, or with tool calls to run. */
export interface TurnOutcome {
  answered: boolean;
}

/**
 * Maps one streamed model turn onto steps: reasoning → `thought` (live); text → `action` when tool
 * calls follow it, `final_answer` when the turn ends without any; each tool call → a `tool_call`
 * step whose writes are the argument fragments. Text is held until the turn shows which it is,
 * because a step's kind is fixed when it starts. Calls after the first are held until the turn
 * ends (steps are sequential on the chain, and some providers interleave their fragments).
 */
export class TurnStreamer {
  readonly #splitter = new ThinkTagSplitter();
  #thought: StepWriter | undefined;
  #text: string[] = [];
  readonly #calls = new Map<number, ToolCallDraft>();
  #liveIndex: number | undefined;
  /** Reasoning or text that arrived after the tool calls began: shown after them. */
  readonly #afterCalls: ContentSegment[] = [];
  #collectingCalls = false;
  #finishReason: string | undefined;

  constructor(private readonly sink: StepSink) {}

  async accept(chunk: ChatCompletionChunk): Promise<void> {
    // The usage-only chunk comes last with `choices: []` (some endpoints leave `choices` out).
    const choice = (chunk.choices ?? []).find((candidate) => candidate.index === 0);
    if (!choice) return;
    const delta = choice.delta as Delta;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) await this.#segment({ kind: 'reasoning', text: reasoning });
    const text = (delta.content ?? '') + (delta.refusal ?? '');
    if (text) for (const segment of this.#splitter.push(text)) await this.#segment(segment);
    for (const fragment of delta.tool_calls ?? []) await this.#toolCallFragment(fragment);
    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
  }

  /** The stream ended: finish the open steps and say how the turn ended. */
  async finish(): Promise<TurnOutcome> {
    for (const segment of this.#splitter.flush()) await this.#segment(segment);
    if (this.#finishReason === undefined) {
      throw new OpenAIEndpointError('OpenAI-compatible endpoint closed the stream before the model finished its turn.');
    }
    this.#endThought();
    if (this.#calls.size) {
      await this.#finishToolCalls();
      this.#collectingCalls = false;
      for (const segment of this.#afterCalls) await this.#segment(segment);
      this.#endThought();
      await this.#flushText('action');
      return { answered: false };
    }
    if (!hasVisibleText(this.#text)) {
      throw new OpenAIEndpointError(`The model ended its turn (finish_reason: ${this.#finishReason}) without an answer or a tool call.`);
    }
    if (this.#finishReason === 'length') this.sink.notice('the model reached its output limit; the answer may be cut short');
    await this.#flushText('final_answer');
    return { answered: true };
  }

  async #segment(segment: ContentSegment): Promise<void> {
    if (this.#collectingCalls) {
      this.#afterCalls.push(segment);
      return;
    }
    if (segment.kind === 'text') {
      // Blank lines between reasoning chunks (some servers send them) do not end the thought.
      if (segment.text.trim()) this.#endThought();
      this.#text.push(segment.text);
      return;
    }
    // Text followed by more reasoning was a step on the way, not the answer.
    await this.#flushText('action');
    await this.#writeThought(segment.text);
  }

  async #writeThought(text: string): Promise<void> {
    // Reasoning usually opens with a newline after <think>; the step starts at its first word.
    const piece = this.#thought ? text : text.trimStart();
    if (!piece) return;
    this.#thought ??= this.sink.start('thought');
    await this.#thought.write(piece);
  }

  #endThought(): void {
    this.#thought?.end();
    this.#thought = undefined;
  }

  /** Stream the held text as one step of `kind`, each fragment one write, without surrounding blank lines. */
  async #flushText(kind: Extract<StepKind, 'action' | 'final_answer'>): Promise<void> {
    const fragments = trimFragments(this.#text);
    this.#text = [];
    if (!fragments.length) return;
    const writer = this.sink.start(kind);
    for (const fragment of fragments) await writer.write(fragment);
    writer.end();
  }

  async #toolCallFragment(fragment: ToolCallFragment): Promise<void> {
    if (!this.#collectingCalls) {
      this.#endThought();
      await this.#flushText('action');
      this.#collectingCalls = true;
    }
    let draft = this.#calls.get(fragment.index);
    if (!draft) {
      draft = { name: '', fragments: [], written: 0 };
      this.#calls.set(fragment.index, draft);
    }
    // Some endpoints repeat the name in every fragment: the first one names the call.
    if (!draft.name && fragment.function?.name) draft.name = fragment.function.name;
    const args = fragment.function?.arguments;
    if (args) draft.fragments.push(args);
    this.#liveIndex ??= fragment.index;
    if (fragment.index === this.#liveIndex && draft.name && draft.fragments.length) await this.#pump(draft);
  }

  /** Start the call's step if needed and write the fragments it has not written yet. */
  async #pump(draft: ToolCallDraft): Promise<void> {
    draft.writer ??= this.sink.start('tool_call', { tool: draft.name || 'unnamed_tool' });
    while (draft.written < draft.fragments.length) {
      const fragment = draft.fragments[draft.written++];
      if (fragment !== undefined) await draft.writer.write(fragment);
    }
  }

  async #finishToolCalls(): Promise<void> {
    const indices = [...this.#calls.keys()].sort((a, b) => a - b);
    for (const index of indices) {
      const draft = this.#calls.get(index);
      if (!draft) continue;
      // A tool without parameters may come with no arguments at all; its input is the empty object.
      if (!draft.fragments.length) draft.fragments.push('{}');
      await this.#pump(draft);
      draft.writer?.end();
    }
  }
}

function hasVisibleText(fragments: readonly string[]): boolean {
  return fragments.some((fragment) => fragment.trim() !== '');
}

/** Drop the blank lines around a text (e.g. after `</think>`) while keeping its fragments as they came. */
function trimFragments(fragments: readonly string[]): string[] {
  const first = fragments.findIndex((fragment) => fragment.trim() !== '');
  if (first < 0) return [];
  let last = fragments.length - 1;
  while ((fragments[last] ?? '').trim() === '') last--;
  const kept = fragments.slice(first, last + 1);
  kept[0] = (kept[0] ?? '').trimStart();
  kept[kept.length - 1] = (kept[kept.length - 1] ?? '').trimEnd();
  return kept;
}
