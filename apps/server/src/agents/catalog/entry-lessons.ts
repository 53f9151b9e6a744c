import { LESSONS_LIMITS } from '@interthought/protocol';
import type { AgentEntry } from '../../config/agents-catalog.js';

/** An entry's `"lessons": true` as its agent's `lessons` (PROTOCOL.md §26.4): `lessonsMax`, or the default many. */
export function lessonsOf(entry: Pick<AgentEntry, 'lessons' | 'lessonsMax'>): { max: number } | undefined {
  return entry.lessons === true ? { max: entry.lessonsMax ?? LESSONS_LIMITS.defaultMax } : undefined;
}
