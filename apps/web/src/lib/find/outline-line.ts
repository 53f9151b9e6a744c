import { ASK_USER_TOOL } from '@interthought/protocol';
import type { StepView } from '$lib/chain/step-view.svelte.js';

const LINE_CHARS = 120;

/** A step's first line as the outline lists it: the first line with text, a tool call as its tool's name and input. */
export function outlineLine(view: StepView): string {
  const content = view.content;
  let line = '';
  for (const candidate of content.split('\n', 8)) {
    const trimmed = candidate.trim();
    if (trimmed !== '') {
      line = trimmed;
      break;
    }
  }
  if (view.kind === 'tool_call' && view.tool && view.tool !== ASK_USER_TOOL) line = `${view.tool} ${line}`;
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
}
