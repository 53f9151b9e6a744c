import {
  applyEvent,
  createSessionState,
  type SessionEvent,
  type SessionInfo,
  type SessionOptions,
  type SessionSnapshotData,
  type SessionState,
} from '@interthought/protocol';
import type { EventStore, SessionRecord } from './event-store.js';
import { SessionError } from './session-error.js';

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
  const { error: _error, detail: _detail, ...fixed } = info;
  return createSessionState({ ...fixed, status: 'running', revision: 0 });
}

/**
 * Rebuild a session's state from the store: the stored snapshot if there is one (retention
 * trimmed the events before it), then every later event folded with the protocol reducer.
 * Undefined when the store has no such session; `INTERNAL` when its log cannot be folded.
 */
export function loadSession(store: EventStore, sessionId: string): LoadedSession | undefined {
  const record = store.getSession(sessionId);
  if (record === undefined) return undefined;
  const snapshot = store.readSnapshot?.(sessionId);
  const state = snapshot ? createSessionState(snapshot) : stateBeforeFirstEvent(record.info);
  try {
    for (const event of store.readEvents(sessionId, state.seq)) applyEvent(state, event);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new SessionError('INTERNAL', `Session ${sessionId} could not be read back from the store: ${why}`);
  }
  if (state.seq === 0) {
    throw new SessionError('INTERNAL', `Session ${sessionId} has no events in the store, so its state cannot be rebuilt.`);
  }
  return { state, options: { ...record.options } };
}

const RECOVERY_PAGE = 500;

function runningRecords(store: EventStore): SessionRecord[] {
  if (store.listSessionsByStatus) return store.listSessionsByStatus('running');
  // Stores without the query: page through every session once, at startup only.
  const found: SessionRecord[] = [];
  let before: string | undefined;
  do {
    const page = store.listSessions(before === undefined ? { limit: RECOVERY_PAGE } : { limit: RECOVERY_PAGE, before });
    for (const info of page.sessions) {
      if (info.status !== 'running') continue;
      const record = store.getSession(info.sessionId);
      if (record) found.push(record);
    }
    before = page.nextCursor;
  } while (before !== undefined);
  return found;
}

/**
 * Mark sessions whose run was in flight when the previous process stopped as `interrupted`:
 * one `session.status` event each at `lastSeq + 1`, written straight to the store without
 * loading their logs. `skip` names sessions this process is running itself.
 * Returns the ids marked.
 */
export function recoverInterrupted(store: EventStore, now: () => Date, skip: (sessionId: string) => boolean): string[] {
  const records = runningRecords(store).filter((record) => record.info.status === 'running' && !skip(record.info.sessionId));
  if (records.length === 0) return [];
  const at = now().toISOString();
  const events: SessionEvent[] = records.map((record) => ({
    type: 'session.status',
    sessionId: record.info.sessionId,
    seq: record.lastSeq + 1,
    at,
    status: 'interrupted',
  }));
  store.appendBatch(events);
  for (const record of records) {
    const { error: _error, detail: _detail, ...info } = record.info;
    store.updateSession({ ...info, status: 'interrupted' });
  }
  return records.map((record) => record.info.sessionId);
}
