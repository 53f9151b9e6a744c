// Agents learn from corrections (PROTOCOL.md §26.4): which corrections match a run, and the guidance they become.
export { GUIDANCE_HEADER, isLessonsGuidance, lessonLine, writeGuidance } from './lesson-guidance.js';
export { TOOL_BONUS, jaccard, pickLessons, taskWords, type LessonRun } from './lesson-matching.js';
export { CANDIDATE_WINDOW, indexCandidates, type LessonCandidates } from './lesson-candidates.js';
export { indexLessons, lessonsFrom } from './run-lessons.js';
