import { DELEGATE_TOOL, breakpointDetail, matchBreakpoint, type BreakpointMatch, type SessionEvent, type Step } from '@interthought/protocol';
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
  // A sub-agent's result is the server's step, whoever writes it down: its delegate call's observation.
  if (step.kind === 'observation' && step.tool === DELEGATE_TOOL) return undefined;
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

/**
 * Whether the head of the chain of `scope` is where a breakpoint stopped it: the marked step, or
 * the user's correction of it (which runs on resume). Read from the log, so it holds after a restart.
 */
export function headIsStop(session: LiveSession, scope?: string): boolean {
  const head = session.head(scope);
  if (head === undefined || head.status === 'streaming') return false;
  if (head.breakpoint !== undefined) return true;
  return head.correctionOf !== undefined && session.state.steps.get(head.correctionOf)?.breakpoint !== undefined;
}

/** Whether `step` is where the paused session stopped at a breakpoint: a correction of it runs on resume, not now. */
export function isBreakpointStop(session: LiveSession, step: Step): boolean {
  return session.status === 'paused' && session.head(step.scope)?.stepId === step.stepId && headIsStop(session, step.scope);
}
