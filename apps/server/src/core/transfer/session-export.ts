import {
  applyEvent,
  createSessionState,
  SessionInfoSchema,
  type SessionEvent,
  type SessionInfo,
  type SessionOptions,
  type SessionSnapshotData,
  type SessionState,
} from '@interthought/protocol';
import { z } from 'zod';
import type { EventStore, SessionRecord } from '../persistence/event-store.js';
import { SessionError } from '../session-error.js';
import { stateBeforeFirstEvent } from '../persistence/session-loader.js';

/*
 * A session's export (PROTOCOL.md §20.5 "Export and import"): newline-delimited JSON, a header,
 * the snapshot the kept events start from when retention trimmed the log, then every kept event
 * exactly as it was stored.
 */

/** The `type` of an export's first line. */
export const EXPORT_HEADER_TYPE = 'interthought.export';
/** The version of the export format this server writes and reads. */
export const EXPORT_VERSION = 1;

/** An export's first line; `version` and `options` are checked on their own, so an import can say what is wrong with them. */
export const ExportHeaderSchema = z.looseObject({
  type: z.literal(EXPORT_HEADER_TYPE),
  version: z.number(),
  session: SessionInfoSchema,
  options: z.unknown(),
});

export interface ExportHeader {
  type: typeof EXPORT_HEADER_TYPE;
  version: typeof EXPORT_VERSION;
  session: SessionInfo;
  options: SessionOptions;
}

/** What an export is made of, as read from the store. */
export interface SessionExport {
  record: SessionRecord;
  /** The state the kept events start from, when retention trimmed the log. */
  snapshot?: SessionSnapshotData;
  /** Every kept event, in seq order, as the JSON it was stored as. */
  frames: string[];
}

/** Reads of a log that retention trimmed in between, before the read gives up. */
const READ_ATTEMPTS = 3;

function seqOfFrame(frame: string): number {
  return (JSON.parse(frame) as { seq: number }).seq;
}

/**
 * Read a session's export from the store, or undefined when there is no such session. The
 * snapshot and the events are two reads: when retention trimmed the log in between (the events
 * no longer follow the snapshot) they are read again.
 */
export async function readSessionExport(store: EventStore, sessionId: string): Promise<SessionExport | undefined> {
  const record = await store.getSession(sessionId);
  if (record === undefined) return undefined;
  for (let attempt = 1; attempt <= READ_ATTEMPTS; attempt += 1) {
    const firstKept = await store.firstKeptSeq(sessionId);
    const snapshot = firstKept !== undefined && firstKept > 1 ? await store.readSnapshot(sessionId) : undefined;
    const after = snapshot?.seq ?? 0;
    const frames = await store.readEventFrames(sessionId, after);
    const first = frames[0];
    if (first === undefined || seqOfFrame(first) === after + 1) return snapshot === undefined ? { record, frames } : { record, snapshot, frames };
  }
  throw new SessionError('INTERNAL', `The log of session ${sessionId} changed while it was being read; export it again.`);
}

/** The header line's object. */
export function exportHeader(exported: SessionExport): ExportHeader {
  return { type: EXPORT_HEADER_TYPE, version: EXPORT_VERSION, session: exported.record.info, options: exported.record.options };
}

/** The export as NDJSON: one JSON object per line, every line ended by a newline. */
export function exportNdjson(exported: SessionExport): string {
  const lines = [JSON.stringify(exportHeader(exported))];
  if (exported.snapshot !== undefined) lines.push(JSON.stringify({ type: 'session.snapshot', ...exported.snapshot }));
  lines.push(...exported.frames);
  return `${lines.join('\n')}\n`;
}

/** The file name a download of the export gets (ids are url-safe already; anything else is replaced). */
export function exportFileName(sessionId: string, extension: 'ndjson' | 'md'): string {
  return `interthought-${sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}.${extension}`;
}

/** The session's state, folded from its export the way a load from the store folds it. */
export function foldExport(exported: SessionExport): SessionState {
  const state = exported.snapshot ? createSessionState(exported.snapshot) : stateBeforeFirstEvent(exported.record.info);
  try {
    for (const frame of exported.frames) applyEvent(state, JSON.parse(frame) as SessionEvent);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new SessionError('INTERNAL', `Session ${exported.record.info.sessionId} could not be read back from the store: ${why}`);
  }
  return state;
}
