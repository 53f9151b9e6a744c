import type { SessionDeletedEvent } from '@interthought/protocol';
import type { SessionEngine } from '../sessions/session-engine.js';
import type { Peer, ReplyTo } from '../fanout/peer.js';
import { announceDeletion, deletedEvent } from '../fanout/deletion-announcement.js';
import { SessionError, notFound } from '../session-error.js';

/**
 * `session.delete`. Durable first, then announced: the session stops taking events, what it has is
 * written and sent, the store deletes it, and only then do its watchers here get `session.deleted`,
 * after everything else they got. Returns the event, for the watchers elsewhere.
 */
export async function deleteSession(engine: SessionEngine, sessionId: string, reply: ReplyTo | undefined): Promise<SessionDeletedEvent> {
  await engine.open();
  if (typeof sessionId !== 'string') throw notFound(sessionId);
  const live = await engine.inMemory(sessionId);
  // A session not in memory has no watchers, no run and nothing unwritten: its record is enough.
  const lastSeq = live?.state.seq ?? (await engine.store.getSession(sessionId))?.lastSeq;
  if (lastSeq === undefined || live?.deleted === true) throw notFound(sessionId);
  if (live !== undefined && !(await engine.flushed())) {
    throw new SessionError('INTERNAL', "The session's latest events could not be written yet, so it was not deleted; try again shortly.");
  }
  try {
    await engine.store.deleteSession(sessionId);
  } catch (error) {
    engine.reportError(`deleteSession failed for session ${sessionId}`, error);
    throw new SessionError('INTERNAL', `Session ${sessionId} could not be deleted from the store; it is unchanged. Try again.`);
  }
  const watchers: ReadonlyMap<Peer, number> = live === undefined ? new Map() : engine.forget(live);
  // After the last event anyone got: what the run queued meanwhile was discarded, never sent.
  const deleted = deletedEvent(sessionId, live?.writtenSeq ?? lastSeq, engine.now().toISOString());
  announceDeletion(deleted, watchers, reply, engine.reportError);
  return deleted;
}
