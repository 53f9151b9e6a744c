import { LESSONS_LIMITS, type CorrectionRecord } from '@interthought/protocol';

/*
 * The guidance text of a lessons step (PROTOCOL.md §26.4): a header line, then one line a lesson,
 * at most `LESSONS_LIMITS.maxChars` characters in all. That bounds the tokens it adds to a model
 * call: about 1,000 for English prose (some 4 characters a token) and, since a BPE token is rarely
 * shorter than half a character, under 8,000 even for the rarest scripts.
 */

/** The first line of every guidance text: it tells the model what follows, and marks a lessons step's text. */
export const GUIDANCE_HEADER = 'Lessons from earlier corrections (a person corrected these steps in similar tasks; do as they say where it applies):';

/** Whether a text is lessons guidance this server wrote (a correction of a lessons step is no lesson itself). */
export function isLessonsGuidance(text: string): boolean {
  return text.startsWith(GUIDANCE_HEADER);
}

const WHAT_YOU_DID: Record<CorrectionRecord['kind'], string> = {
  thought: 'you reasoned',
  action: 'you planned',
  tool_call: 'you called',
  observation: 'a tool gave',
  final_answer: 'you answered',
  user_message: 'the user said',
};

/** Text on one line, cut to `max` characters with an ellipsis. */
function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  return max <= 1 ? line.slice(0, max) : `${line.slice(0, max - 1)}…`;
}

/** One lesson's line, at most `max` characters: the task, what the agent did, what a person made of it, and why. */
export function lessonLine(record: CorrectionRecord, max: number): string {
  // The fields share the line's room; the agent's own text is the least telling, so it gets the least.
  const room = Math.max(24, max - 80);
  const task = clip(record.task, Math.floor(room * 0.25));
  const did = record.kind === 'tool_call' ? `${record.tool ?? 'a tool'} with ${clip(record.before, Math.floor(room * 0.2))}` : clip(record.before, Math.floor(room * 0.2));
  const fixed =
    record.correction === 'rejected'
      ? `A person refused the call${record.after.trim() === '' ? '.' : `: ${clip(record.after, Math.floor(room * 0.3))}`}`
      : `A person corrected it to: ${clip(record.after, Math.floor(room * 0.3))}`;
  const why = record.note === undefined || record.note.trim() === '' ? '' : ` — because ${clip(record.note, Math.floor(room * 0.25))}`;
  return clip(`- When asked "${task}", ${WHAT_YOU_DID[record.kind]}: ${did} ${fixed}${why}`, max);
}

/** The guidance for these lessons, best first: the header, then one line a lesson, `LESSONS_LIMITS.maxChars` at most. */
export function writeGuidance(lessons: readonly CorrectionRecord[]): string {
  if (lessons.length === 0) return '';
  const room = LESSONS_LIMITS.maxChars - GUIDANCE_HEADER.length;
  // Each line's share of the room, less its newline.
  const perLine = Math.floor(room / lessons.length) - 1;
  return [GUIDANCE_HEADER, ...lessons.map((record) => lessonLine(record, perLine))].join('\n');
}
