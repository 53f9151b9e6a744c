import type { LessonSource } from '@interthought/protocol';

/** The session page at the step a lesson's correction made (`/sessions/<id>?step=<stepId>`, the address the session page opens a step by). */
export function lessonHref(source: LessonSource): string {
  return `/sessions/${encodeURIComponent(source.sessionId)}?step=${encodeURIComponent(source.correctedStepId)}`;
}
