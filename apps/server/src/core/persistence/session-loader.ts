import {
  applyEvent,
  createSessionState,
  type SessionEvent,
  type SessionInfo,
  type SessionOptions,
  type SessionState,
} from '@interthought/protocol';
import type { EventStore, SessionRecord } from './event-store.js';
import { SessionError } from '../session-error.js';

/** A session read back from the store: its state folded from snapshot and events, and its options. */
export interface LoadedSession {
  state: SessionState;
  options: SessionOptions;
}

/**
 * The state a session's log is folded onto from seq 1: its fixed fields (task, agent,
 * createdAt) from its summary, and what the events set (status, revision …) at their start.
 */
export function stateBeforeFirstEvent(info: SessionInfo): SessionState {
  // Usage totals are the fold of `usage.recorded` events too: kept, they would count twice.
  const { error: _error, detail: _detail, failure: _failure, usage: _usage, ...fixed } = info;
  return createSessionState({ ...fixed, status: 'running', revision: 0 });
}

/**
 * Rebuild a session's state from the store: the stored snapshot if there is one (retention
 * trimmed the events before it), then every later event folded with the protocol reducer.
 * Undefined when the store has no such session; `INTERNAL` when its log cannot be folded.
 */
export async function loadSession(store: EventStore, sessionId: string): Promise<LoadedSession | undefined> {
  const record = await store.getSession(sessionId);
  if (record === undefined) return undefined;
  const snapshot = await store.readSnapshot(sessionId);
  const state = snapshot ? createSessionState(snapshot) : stateBeforeFirstEvent(record.info);
  const events = await store.readEvents(sessionId, state.seq);
  try {
    for (const event of events) applyEvent(state, event);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new SessionError('INTERNAL', `Session ${sessionId} could not be read back from the store: ${why}`);
  }
  // A session created a moment ago whose first events are still being written (read from another
  // node of a cluster) is its record as created; one whose record counts events that are gone is broken.
  if (state.seq === 0 && record.lastSeq === 0 && snapshot === undefined) return { state, options: { ...record.options } };
  if (state.seq === 0) {
    throw new SessionError('INTERNAL', `Session ${sessionId} has no events in the store, so its state cannot be rebuilt.`);
  }
  return { state, options: { ...record.options } };
}

/** The `session.status interrupted` event and summary of a session whose run died with its process. */
export function interruptedBy(record: SessionRecord, at: string): { event: SessionEvent; summary: SessionInfo } {
  const { error: _error, detail: _detail, ...info } = record.info;
  return {
    event: { type: 'session.status', sessionId: info.sessionId, seq: record.lastSeq + 1, at, status: 'interrupted' },
    summary: { ...info, status: 'interrupted' },
  };
}

/**
 * Mark sessions whose run was in flight when the previous process stopped as `interrupted`:
 * one `session.status` event each at `lastSeq + 1`, written straight to the store with its
 * summary, without loading their logs. `skip` names sessions this process is running itself.
 * Returns the ids marked.
 */
export async function recoverInterrupted(store: EventStore, now: () => Date, skip: (sessionId: string) => boolean): Promise<string[]> {
  const records = (await store.listSessionsByStatus('running')).filter((record) => record.info.status === 'running' && !skip(record.info.sessionId));
  if (records.length === 0) return [];
  const at = now().toISOString();
  const marks = records.map((record) => interruptedBy(record, at));
  const events = marks.map((mark) => mark.event);
  await store.appendBatch({ events, frames: events.map((event) => JSON.stringify(event)), summaries: marks.map((mark) => mark.summary) });
  return records.map((record) => record.info.sessionId);
}
