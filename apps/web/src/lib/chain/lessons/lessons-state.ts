import { LESSONS_LIMITS } from '@interthought/protocol';
import type { StepView } from '../step-view.svelte.js';

/** What a lessons step says now: the lessons as written, corrected by a person, or dropped (PROTOCOL.md §26.4). */
export type LessonsState = 'using' | 'edited' | 'dropped';

export function lessonsState(view: Pick<StepView, 'content' | 'correction'>): LessonsState {
  if (view.content.trim() === LESSONS_LIMITS.dropped) return 'dropped';
  return view.correction === undefined ? 'using' : 'edited';
}
