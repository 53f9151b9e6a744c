import {
  applyEvent,
  issuesToDetails,
  ReducerError,
  SESSION_EVENT_TYPES,
  SessionEventSchema,
  SessionOptionsSchema,
  SessionSnapshotSchema,
  type LoggedSessionEvent,
  type Owner,
  type SessionInfo,
  type SessionSnapshotData,
  type SessionState,
  type Step,
} from '@interthought/protocol';
import type { z } from 'zod';
import type { AppendBatch, EventStore, SessionRecord } from '../persistence/event-store.js';
import { isActive } from '@interthought/protocol';
import { EXPORT_HEADER_TYPE, EXPORT_VERSION, ExportHeaderSchema, type ExportHeader } from './session-export.js';
import { SessionError } from '../session-error.js';
import { checkTask } from '../commands/session-input.js';
import { interruptedBy, stateBeforeFirstEvent } from '../persistence/session-loader.js';

/*
 * An import (PROTOCOL.md §20.5 "Export and import"): every line of an export is checked with the
 * protocol's schemas and folded with the reducer before anything is stored, so a bad file is
 * refused whole, naming its first bad line.
 */

/** Why an import was refused: the first line that failed (1-based) and what is wrong with it. */
export class ImportError extends Error {
  override readonly name = 'ImportError';
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** An export that passed every check, ready to be stored as a new session. */
export interface ParsedImport {
  header: ExportHeader;
  /** The events to store, seq 1 … n, still stamped with the exported session's id. */
  events: LoggedSessionEvent[];
  /** The fold of `events`: the state the new session starts as. */
  state: SessionState;
}

/** What the store gets for an imported session. */
export interface StoredImport {
  /** For `createSession`: the new session's summary and options, no events yet. */
  record: SessionRecord;
  /** Its whole log and summary, as one append. */
  batch: AppendBatch;
  /** Its state (the summary carries the new id). */
  state: SessionState;
}

const HEADER_LINE = 1;
/** Who takes back the remembered approvals of an imported log: the server, as for a timeout. */
const IMPORT_FORGETTER = 'server';
const SNAPSHOT_TYPE = 'session.snapshot';
const AGENT_NAME_MAX = 64;
const EVENT_TYPES: ReadonlySet<string> = new Set(SESSION_EVENT_TYPES);

/** The first schema issue, as `path: message`. */
function firstIssue(error: z.ZodError, prefix: readonly (string | number)[] = []): string {
  const detail = issuesToDetails(error.issues)[0];
  if (detail === undefined) return 'it does not match the schema';
  const path = [...prefix, ...detail.path];
  return path.length === 0 ? detail.message : `${path.join('.')}: ${detail.message}`;
}

/** The file's lines, without a byte-order mark, carriage returns or the empty lines at its end. */
function splitLines(text: string): string[] {
  const lines = text.replace(/^\uFEFF/, '').split('\n').map((line) => line.replace(/\r$/, ''));
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return lines;
}

function parseObject(text: string, line: number): Record<string, unknown> {
  if (text.trim() === '') throw new ImportError(line, `Line ${line} is empty: an export has one JSON object on every line.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ImportError(line, `Line ${line} is not JSON: ${(error as Error).message}.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ImportError(line, `Line ${line} is not a JSON object.`);
  return value as Record<string, unknown>;
}

function parseHeader(text: string): ExportHeader {
  const raw = parseObject(text, HEADER_LINE);
  if (raw.type !== EXPORT_HEADER_TYPE) {
    throw new ImportError(HEADER_LINE, `Line 1 is not an Interthought export header: its type is ${JSON.stringify(raw.type)}, not "${EXPORT_HEADER_TYPE}".`);
  }
  if (raw.version !== EXPORT_VERSION) {
    throw new ImportError(HEADER_LINE, `This export is version ${JSON.stringify(raw.version)}; this server reads version ${EXPORT_VERSION}.`);
  }
  const header = ExportHeaderSchema.safeParse(raw);
  if (!header.success) throw new ImportError(HEADER_LINE, `The header is not valid: ${firstIssue(header.error)}.`);
  const options = SessionOptionsSchema.safeParse(header.data.options ?? {});
  if (!options.success) throw new ImportError(HEADER_LINE, `The header's session options are not valid: ${firstIssue(options.error, ['options'])}.`);
  const session = header.data.session;
  try {
    checkTask(session.task);
  } catch (error) {
    if (error instanceof SessionError) throw new ImportError(HEADER_LINE, `The header's task is not valid: ${error.message}`);
    throw error;
  }
  if (session.agent.length === 0 || session.agent.length > AGENT_NAME_MAX) {
    throw new ImportError(HEADER_LINE, `The header's agent must be a name of 1 to ${AGENT_NAME_MAX} characters.`);
  }
  return { type: EXPORT_HEADER_TYPE, version: EXPORT_VERSION, session, options: options.data };
}

function parseSnapshot(raw: Record<string, unknown>, line: number, header: ExportHeader): SessionSnapshotData {
  const parsed = SessionSnapshotSchema.safeParse(raw);
  if (!parsed.success) throw new ImportError(line, `The snapshot on line ${line} is not valid: ${firstIssue(parsed.error)}.`);
  const snapshot = parsed.data;
  if (snapshot.session.sessionId !== header.session.sessionId) {
    throw new ImportError(line, `The snapshot on line ${line} is of session ${snapshot.session.sessionId}, but the header's is ${header.session.sessionId}.`);
  }
  const stepIds = new Set(snapshot.steps.map((step) => step.stepId));
  const missing = snapshot.chain.find((stepId) => !stepIds.has(stepId));
  if (missing !== undefined) throw new ImportError(line, `The snapshot on line ${line} has step ${missing} on its chain but not among its steps.`);
  const kept: SessionSnapshotData = { session: snapshot.session, steps: snapshot.steps, chain: snapshot.chain, seq: snapshot.seq };
  if (snapshot.queued !== undefined) kept.queued = snapshot.queued;
  if (snapshot.subagents !== undefined) kept.subagents = snapshot.subagents;
  return kept;
}

function parseEvent(raw: Record<string, unknown>, line: number): LoggedSessionEvent {
  if (raw.type === 'session.deleted') {
    throw new ImportError(line, `Line ${line} is a session.deleted event: a log never holds one, so an export cannot either.`);
  }
  if (typeof raw.type !== 'string' || !EVENT_TYPES.has(raw.type)) {
    throw new ImportError(line, `Line ${line} is not a session event: its type is ${JSON.stringify(raw.type)}.`);
  }
  const parsed = SessionEventSchema.safeParse(raw);
  if (!parsed.success) throw new ImportError(line, `Line ${line} is not a valid ${raw.type} event: ${firstIssue(parsed.error)}.`);
  // The line as written (checked above): its fields stay in their order, unknown ones included.
  return raw as LoggedSessionEvent;
}

function fold(state: SessionState, event: LoggedSessionEvent, line: number): void {
  try {
    applyEvent(state, event);
  } catch (error) {
    if (!(error instanceof ReducerError)) throw error;
    throw new ImportError(line, `Line ${line} does not fit the session as folded so far: ${error.message}`);
  }
}

/**
 * The events that rebuild a snapshot's state from seq 1: its status, then a copy of its current
 * chain, then the messages it had queued. Earlier branches (invalidated steps) are not kept: a
 * trimmed log no longer has the events that made them, and the snapshot's chain is all an
 * import can rebuild with events. Copies keep their ids (the later events name them); they lose
 * `correctionOf`, which names a step of an earlier branch.
 */
function snapshotEvents(snapshot: SessionSnapshotData, at: string): LoggedSessionEvent[] {
  const { sessionId, status, error, detail } = snapshot.session;
  const events: LoggedSessionEvent[] = [
    { type: 'session.status', sessionId, seq: 1, at, status, ...(error === undefined ? {} : { error }), ...(detail === undefined ? {} : { detail }) },
  ];
  const byId = new Map(snapshot.steps.map((step) => [step.stepId, step]));
  const chain = snapshot.chain.map((stepId) => byId.get(stepId)).filter((step): step is Step => step !== undefined);
  const head = chain[chain.length - 1];
  if (head !== undefined) {
    const steps = chain.map(({ correctionOf: _replaced, ...step }) => step);
    const revision = snapshot.session.revision;
    events.push({ type: 'steps.copied', sessionId, seq: events.length + 1, at, steps, from: { sessionId, stepId: head.stepId }, ...(revision > 0 ? { revision } : {}) });
  }
  // Each sub-agent's scope with its chain, in the order they started (a parent's before its own), and how it ended (PROTOCOL.md §24.7).
  for (const subagent of snapshot.subagents ?? []) {
    const { scope, parentScope, depth, name, agent, task, status, error: failed } = subagent;
    events.push({ type: 'subagent.started', sessionId, seq: events.length + 1, at, scope, ...(parentScope === undefined ? {} : { parentScope }), depth, name, agent, task });
    const steps = subagent.chain.flatMap((stepId) => {
      const step = byId.get(stepId);
      if (step === undefined) return [];
      const { correctionOf: _replaced, ...copy } = step;
      return [copy];
    });
    const last = steps.at(-1);
    if (last !== undefined) events.push({ type: 'steps.copied', sessionId, seq: events.length + 1, at, steps, from: { sessionId, stepId: last.stepId } });
    if (status !== 'running') events.push({ type: 'subagent.status', sessionId, seq: events.length + 1, at, scope, status, ...(failed === undefined ? {} : { error: failed }) });
  }
  for (const message of snapshot.queued ?? []) {
    events.push({ type: 'message.queued', sessionId, seq: events.length + 1, at: message.at, stepId: message.stepId, text: message.text, mode: message.mode });
  }
  return events;
}

/** The event moved by `offset` seqs (a coalesced delta's range with it). */
function shifted(event: LoggedSessionEvent, offset: number): LoggedSessionEvent {
  if (offset === 0) return event;
  const moved = { ...event, seq: event.seq + offset };
  if (moved.type === 'step.delta' && moved.fromSeq !== undefined) moved.fromSeq += offset;
  return moved;
}

/**
 * Check an export line by line and fold it, or throw an `ImportError` naming the first line that
 * fails. `now` stamps the events that rebuild a snapshot line's state.
 */
export function parseImport(text: string, now: string): ParsedImport {
  const lines = splitLines(text);
  if (lines.length === 0) throw new ImportError(HEADER_LINE, 'The file is empty: an export starts with its header line.');
  const header = parseHeader(lines[0]!);
  const state = stateBeforeFirstEvent(header.session);
  const events: LoggedSessionEvent[] = [];
  let index = 1;
  let offset = 0;
  const second = lines[1] === undefined ? undefined : parseObject(lines[1], 2);
  if (second?.type === SNAPSHOT_TYPE) {
    const snapshot = parseSnapshot(second, 2, header);
    for (const event of snapshotEvents(snapshot, now)) {
      fold(state, event, 2);
      events.push(event);
    }
    // The kept events are checked against the seqs they were exported with, then stored after the rebuilt ones.
    offset = events.length - snapshot.seq;
    state.seq = snapshot.seq;
    index = 2;
  }
  if (index >= lines.length) throw new ImportError(index + 1, `The export has no events: line ${index + 1} should be the first one.`);
  for (; index < lines.length; index += 1) {
    const line = index + 1;
    const event = parseEvent(index === 1 && second !== undefined ? second : parseObject(lines[index]!, line), line);
    fold(state, event, line);
    events.push(shifted(event, offset));
  }
  state.seq += offset;
  return { header, events, state };
}

/**
 * The new session an import makes: a new id stamped on every event (step ids are kept), the
 * header's task, agent, options and creation time, the rest of its summary from the fold. One
 * that was running or paused is `interrupted` (one more event): no run exists for it here.
 */
export function importedSession(parsed: ParsedImport, sessionId: string, at: string, ownedBy?: Owner): StoredImport {
  const events = parsed.events.map((event) => ({ ...event, sessionId }) as LoggedSessionEvent);
  const { options } = parsed.header;
  // An import belongs to whoever imported it, never to the owner named in the file (PROTOCOL.md §21.2).
  const { owner: _exportedOwner, ...exported } = parsed.state.session;
  let info: SessionInfo = { ...exported, sessionId, ...(ownedBy === undefined ? {} : { owner: { id: ownedBy.id, name: ownedBy.name } }) };
  // Approvals given once belong to the session they were given in (PROTOCOL.md §25.3): the log keeps them, the import takes them back.
  const remembered = [...parsed.state.remembered.keys()];
  if (remembered.length > 0) {
    events.push({ type: 'approvals.forgotten', sessionId, seq: events.length + 1, at, tools: remembered, by: IMPORT_FORGETTER } as LoggedSessionEvent);
  }
  if (isActive(info.status)) {
    const mark = interruptedBy({ info, options, lastSeq: events.length }, at);
    events.push(mark.event as LoggedSessionEvent);
    info = mark.summary;
  }
  return {
    record: { info, options, lastSeq: 0 },
    batch: { events, frames: events.map((event) => JSON.stringify(event)), summaries: [info] },
    state: { ...parsed.state, session: info, seq: events.length, remembered: new Map() },
  };
}

/** Store an imported session: its record, then its whole log in one append; nothing stays of one whose append failed. */
export async function writeImport(store: EventStore, stored: StoredImport): Promise<void> {
  await store.createSession(stored.record);
  try {
    await store.appendBatch(stored.batch);
  } catch (error) {
    await store.deleteSession(stored.record.info.sessionId).catch(() => undefined);
    throw error;
  }
}
