import type { LessonSource } from '@interthought/protocol';

/** A run about to start, as lessons see it (PROTOCOL.md §26.4). */
export interface LessonsQuery {
  readonly sessionId: string;
  /** The session owner's user id; absent on a server without auth (every user's corrections count). */
  readonly owner?: string | undefined;
  readonly agent: string;
  readonly task: string;
  /** The tools the run may call. */
  readonly tools: readonly string[];
  /** How many lessons at most (the agent's `lessonsMax`). */
  readonly max: number;
}

/** What a run's lessons step holds: the corrections it came from, and the guidance the agent is given. */
export interface RunLessons {
  readonly sources: LessonSource[];
  readonly guidance: string;
}

/** Where the core gets a run's lessons from (the corrections index, `src/corrections/lessons/`): undefined when none match. */
export interface LessonsSource {
  lessonsFor(query: LessonsQuery): Promise<RunLessons | undefined>;
}
