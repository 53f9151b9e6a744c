import type { LessonsSource } from '../../core/ports/lessons-source.js';
import type { CorrectionIndex } from '../correction-index.js';
import { CANDIDATE_WINDOW, indexCandidates, type LessonCandidates } from './lesson-candidates.js';
import { writeGuidance } from './lesson-guidance.js';
import { pickLessons } from './lesson-matching.js';

/** The core's `LessonsSource`: candidates from the index, picked by the §26.4 rule, written as guidance. */
export function lessonsFrom(candidates: LessonCandidates): LessonsSource {
  return {
    async lessonsFor(query) {
      const records = await candidates.forRun({ owner: query.owner, agent: query.agent, excludeSessionId: query.sessionId, limit: CANDIDATE_WINDOW });
      const picked = pickLessons(query, records);
      if (picked.length === 0) return undefined;
      return {
        sources: picked.map(({ sessionId, stepId, correctedStepId }) => ({ sessionId, stepId, correctedStepId })),
        guidance: writeGuidance(picked),
      };
    },
  };
}

/** The lessons of a store's corrections index: what the session core is given, on one process and in a cluster alike. */
export function indexLessons(index: CorrectionIndex): LessonsSource {
  return lessonsFrom(indexCandidates(index));
}
