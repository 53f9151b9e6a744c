import { EventSchema, EventTypeSchema } from '@ag-ui/core/schemas';
import type { Event } from '@ag-ui/core';
import { AgUiFailure } from './agent-failure.js';

/*
 * Each frame judged as the AG-UI processing model says: a retired THINKING_* shape is translated,
 * an event of a type this version does not know is dropped, an outcome it does not know is
 * stripped (the run then ends as an outcome-less RUN_FINISHED does), and a known field holding a
 * value the schema rejects is fatal.
 */

/** A validated event (`EventSchema` keeps the fields it does not describe, which nothing here reads). */
export type AgUiEvent = Event;

const KNOWN_TYPES: ReadonlySet<string> = new Set(EventTypeSchema.options as readonly string[]);
const KNOWN_OUTCOMES: ReadonlySet<string> = new Set(['success', 'interrupt', 'cancelled']);

/** The retired reasoning events of AG-UI before 0.0.45, and what they became. */
const THINKING: Readonly<Record<string, string>> = {
  THINKING_START: 'REASONING_START',
  THINKING_END: 'REASONING_END',
  THINKING_TEXT_MESSAGE_START: 'REASONING_MESSAGE_START',
  THINKING_TEXT_MESSAGE_CONTENT: 'REASONING_MESSAGE_CONTENT',
  THINKING_TEXT_MESSAGE_END: 'REASONING_MESSAGE_END',
};

export class EventValidator {
  /** Ids for translated THINKING_* events, which carried none: one span and one message at a time. */
  #thinking = 0;

  /** The event to act on, or undefined for one to drop. Throws an `AgUiFailure` for a malformed one. */
  check(raw: unknown): AgUiEvent | undefined {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new AgUiFailure('The AG-UI agent sent an event that is not a JSON object.');
    let event = raw as Record<string, unknown>;
    if (typeof event.type !== 'string') throw new AgUiFailure('The AG-UI agent sent an event without a "type".');
    if (event.type in THINKING) event = this.#translate(event);
    if (!KNOWN_TYPES.has(event.type as string)) return undefined;
    if (event.type === 'RUN_FINISHED') event = withoutUnknownOutcome(event);
    const parsed = EventSchema.safeParse(event);
    if (parsed.success) return parsed.data as AgUiEvent;
    const issue = parsed.error.issues[0];
    const path = issue === undefined || issue.path.length === 0 ? '' : ` at "${issue.path.map(String).join('.')}"`;
    throw new AgUiFailure(`The AG-UI agent sent an invalid ${String(event.type)} event${path}: ${issue?.message ?? 'it does not match the schema'}.`);
  }

  #translate(event: Record<string, unknown>): Record<string, unknown> {
    const type = THINKING[event.type as string]!;
    if (type === 'REASONING_START') this.#thinking++;
    const id = `thinking-${this.#thinking}`;
    const translated: Record<string, unknown> = { type, messageId: type.startsWith('REASONING_MESSAGE') ? `${id}-message` : id };
    if (type === 'REASONING_MESSAGE_START') translated.role = 'reasoning';
    if (type === 'REASONING_MESSAGE_CONTENT') translated.delta = event.delta;
    return translated;
  }
}

/** A RUN_FINISHED whose outcome is an object of a type this version does not know, without it. */
function withoutUnknownOutcome(event: Record<string, unknown>): Record<string, unknown> {
  const { outcome } = event;
  if (typeof outcome !== 'object' || outcome === null || Array.isArray(outcome)) return event;
  const type = (outcome as { type?: unknown }).type;
  if (typeof type !== 'string' || KNOWN_OUTCOMES.has(type)) return event;
  const { outcome: _unknown, ...rest } = event;
  return rest;
}
