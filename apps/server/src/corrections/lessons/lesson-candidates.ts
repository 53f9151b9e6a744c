import type { CorrectionRecord } from '@interthought/protocol';
import { allCorrections, type CorrectionIndex } from '../correction-index.js';

/** The corrections a run's lessons are picked from: the owner's, on the agent, from other sessions (PROTOCOL.md §26.4). */
export interface LessonCandidates {
  /** Newest first, `limit` at most. `owner` absent: every user's (a server without auth). */
  forRun(query: { owner?: string | undefined; agent: string; excludeSessionId: string; limit: number }): Promise<CorrectionRecord[]>;
}

/**
 * How many of the newest candidates are scored: enough for a user's recent work on an agent,
 * few enough that a run's start never reads an unbounded history.
 */
export const CANDIDATE_WINDOW = 200;

/** The candidates of the corrections index: the owner's sessions (all with no owner), the agent, not this session. */
export function indexCandidates(index: CorrectionIndex): LessonCandidates {
  return {
    async forRun({ owner, agent, excludeSessionId, limit }) {
      const records: CorrectionRecord[] = [];
      const visibility = owner === undefined ? ({ all: true } as const) : ({ all: false, ownerId: owner } as const);
      for await (const record of allCorrections(index, { filter: { agent }, visibility, excludeSession: excludeSessionId }, Math.min(100, limit))) {
        records.push(record);
        if (records.length >= limit) break;
      }
      return records;
    },
  };
}
