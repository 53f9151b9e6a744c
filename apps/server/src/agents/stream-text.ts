import type { StepKind } from '@interthought/protocol';
import type { StepSink, StepWriter } from '@interthought/agent';

/**
 * Split text into the pieces a model would stream: a word with its trailing space, or a single
 * CJK character (Chinese has no spaces, so word splitting would send whole sentences at once).
 */
export function tokenize(text: string): string[] {
  return text.match(/[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]|[^\s\u3000-\u303f\u3400-\u9fff\uff00-\uffef]+\s*|\s+/gu) ?? [];
}

/** Write text to a step token by token (each write is paced and honours pause and abort). */
export async function writeTokens(writer: StepWriter, text: string): Promise<void> {
  for (const token of tokenize(text)) await writer.write(token);
}

/** Stream a whole step of `kind` with `text`, then end it. Resolves to the step's id (a delegate call's id is its sub-agent's scope). */
export async function streamStep(
  sink: StepSink,
  kind: StepKind,
  text: string,
  extra?: { tool?: string; result?: unknown },
): Promise<string> {
  const writer = sink.start(kind, extra?.tool === undefined ? undefined : { tool: extra.tool });
  await writeTokens(writer, text);
  writer.end(extra?.result === undefined ? undefined : { result: extra.result });
  return writer.stepId;
}
