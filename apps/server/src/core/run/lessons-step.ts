import { LESSONS_LIMITS, type LessonSource, type Step } from '@interthought/protocol';
import type { Agent, AgentToolbox } from '@interthought/agent';
import type { LessonsSource } from '../ports/lessons-source.js';
import type { RunSink } from './run-sink.js';
import type { LiveSession } from '../sessions/live-session.js';

/*
 * The lessons step a run of a lessons agent begins with (PROTOCOL.md §26.4): a `thought` with
 * `lessons`, written by the server through the run's own sink, so it streams, persists and
 * exports like any step, and a person corrects or drops it like any step.
 */

/** The chain's lessons step (the corrected one in its place: a correction keeps `lessons`), or undefined. */
export function lessonsStepOf<S extends Pick<Step, 'lessons' | 'content'>>(chain: readonly S[]): S | undefined {
  return chain.find((step) => step.lessons !== undefined);
}

/**
 * The guidance an agent is given for this chain: its lessons step's text as a person may have
 * corrected it; nothing when it has none or a person dropped it (`LESSONS_LIMITS.dropped`).
 */
export function guidanceOf(chain: readonly Pick<Step, 'lessons' | 'content'>[]): string | undefined {
  const text = lessonsStepOf(chain)?.content.trim();
  return text === undefined || text === '' || text === LESSONS_LIMITS.dropped ? undefined : text;
}

function hasLessonsStep(session: LiveSession): boolean {
  return session.chainOf(undefined).some((stepId) => session.state.steps.get(stepId)?.lessons !== undefined);
}

/**
 * A run that starts from the user's words: a new session's, or one after a message. Any other run
 * goes on from a step (a corrected one, a decided call): a thought put after it would stand
 * between a call and its result, or make a corrected final answer no longer the last word.
 */
function startsFromTheUser(session: LiveSession): boolean {
  const head = session.chainOf(undefined).at(-1);
  return head === undefined || session.state.steps.get(head)?.kind === 'user_message';
}

/** What writing the step needs of its run. */
export interface LessonsRun {
  readonly session: LiveSession;
  readonly sink: RunSink;
  readonly live: boolean;
}

/**
 * Append the lessons step at the head of the session's chain when the agent learns, the run starts
 * from the user's words, the chain has none yet and corrections match. The index failing to answer costs the run its lessons, never the run.
 */
export async function writeLessonsStep(run: LessonsRun, agent: Agent, tools: AgentToolbox, source: LessonsSource | undefined): Promise<void> {
  const { session } = run;
  if (agent.lessons === undefined || source === undefined || !startsFromTheUser(session) || hasLessonsStep(session)) return;
  let found: { sources: LessonSource[]; guidance: string } | undefined;
  try {
    found = await source.lessonsFor({
      sessionId: session.id,
      owner: session.state.session.owner?.id,
      agent: agent.name,
      task: session.state.session.task,
      tools: tools.list().map((tool) => tool.name),
      max: agent.lessons.max,
    });
  } catch {
    return;
  }
  if (found === undefined || !run.live) return;
  const writer = run.sink.start('thought', { lessons: found.sources });
  await writer.write(found.guidance);
  writer.end();
}
