import { breakpointDetail, matchBreakpoint, type BreakpointMatch, type SessionEvent, type Step } from '@interthought/protocol';
import type { LiveSession, SessionRun } from '../sessions/live-session.js';
import type { SessionTimers } from './session-timers.js';

/*
 * Breakpoints (PROTOCOL.md §25.5): a run stops at a step its agent has just written, before
 * anything acts on it. This is the stop; `commands/breakpoint-resume.ts` is the going on.
 */

/**
 * The breakpoint of the session's options that stops the run at `step`, a step the run completed.
 * Only steps a run writes reach here (never a user message, a correction, or one the server writes
 * itself), and never a call that waits or is refused already: `RunSink`'s `end()` asks last.
 */
export function breakpointOn(session: LiveSession, step: Step): BreakpointMatch | undefined {
  return matchBreakpoint(session.options.breakpoints, step.kind, step.tool);
}

/**
 * Stop `run` at `step`, in the turn of its `step.completed`: the run ends as an approval wait ends
 * it, `breakpoint.hit`, then `paused` naming the stop. The session's other runs (sub-agents) are
 * held at their next token by the pause gate, as by `session.pause`. The pause holds no run of the
 * step's agent, so it never expires (its clock is stopped, and a stop is never armed).
 */
export function stopAtBreakpoint(run: SessionRun & { session: LiveSession }, step: Step, match: BreakpointMatch, timers: SessionTimers): void {
  const { session } = run;
  run.abort('the run stopped at a breakpoint');
  const hit: SessionEvent = { type: 'breakpoint.hit', ...session.nextBase(), stepId: step.stepId, breakpoint: { ...match.breakpoint } };
  if (match.index !== undefined) hit.index = match.index;
  session.append(hit);
  timers.disarmPaused(session);
  session.setStatus('paused', { detail: breakpointDetail(step.kind, step.tool) });
}

/** Whether `step` is where a breakpoint stopped the session and it still is: paused, marked, and the head of its chain. */
export function isBreakpointStop(session: LiveSession, step: Step): boolean {
  return session.status === 'paused' && step.breakpoint !== undefined && session.head(step.scope)?.stepId === step.stepId;
}
