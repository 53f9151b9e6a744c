import { FIELD_LIMITS, type ServerMessage, type SessionEvent, type SessionInfo, type SessionSnapshotData, type Step } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { useDurableScope } from './support/durable-scope.js';
import { startDurableServer, type DurableServer, type TempFolder } from './support/durable-server.js';
import { expectWholeLog } from './support/log-checks.js';
import type { RawClient } from './support/raw-client.js';

/** Ten UTF-16 units with a surrogate pair that never straddles a cut at a multiple of ten. */
const LONG_UNIT = "中😀é\t\r\n<>'";
/** The longest task (and correction) there is, of units that are wide in UTF-8 or escaped in JSON. */
const LONGEST = LONG_UNIT.repeat(FIELD_LIMITS.taskMax / LONG_UNIT.length);

/** Text that a careless encoder, database driver, JSON writer or HTML page would change. */
const TRICKY_TEXTS: Record<string, string> = {
  astral: 'Astral: 😀 𝕏 𓀀 and the family 👩‍👩‍👧‍👦, the flags 🏳️‍🌈 🇨🇳 🇺🇸 and 🏴󠁧󠁢󠁳󠁣󠁴󠁿 (tag sequences)',
  cjk: '计算 240 的 15% 是多少？日本語の文章、한국어 문장',
  combining: 'Combining: e\u0301 versus \u00e9, a\u0308, Z\u0351\u0353\u0360\u035b, \u0915\u094d\u0937, \u05e9\u05c1\u05b8',
  bidi: '\u202eright-to-left override\u202c \u200fمرحبا بالعالم\u200e שלום \u2067isolate\u2069',
  separators: 'line\u2028separator and paragraph\u2029separator',
  nul: 'before\u0000after: a NUL in the middle',
  bom: '\ufeffstarts with a BOM and has one \ufeff inside',
  whitespace: 'first line\r\nsecond\tline\r\n\tindented\r\n\u00a0\u2003\u200b trailing ',
  html: '</script><img src=x onerror=alert(1)><!-- --> &amp; &lt;b&gt; <svg onload=alert(2)>',
  json: '{"type":"session.create","task":"nested"} [1,2,{"a":null}] "\\u0000" \\ud800',
  sql: "'); DROP TABLE sessions;-- \" OR 1=1; -- /* */ %_",
  escapes: 'C:\\path\\to\\file "quoted" \'single\' `back` \\n is not a newline, \\\\ two, \\u00e9 is six characters',
  longest: LONGEST,
};

/** The note of a correction: the text itself when it fits, else the start of it (whole units, so no pair is cut). */
const noteFor = (text: string): string => (text.length <= FIELD_LIMITS.noteMax ? text : text.slice(0, FIELD_LIMITS.noteMax));

interface StoredText {
  name: string;
  text: string;
  sessionId: string;
  /** The step that replaced the corrected first thought: its content is `text`, its note `noteFor(text)`. */
  correctedStepId: string;
}

/** What every read path gives back for a session, request ids left out. */
interface Reading {
  listed: SessionInfo | undefined;
  watched: SessionInfo | undefined;
  restSnapshot: SessionSnapshotData;
  wsSnapshot: Omit<SessionSnapshotData, 'requestId'>;
  replay: string[];
}

let folder: TempFolder;
const connect = useDurableScope((made) => (folder = made));

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return (await response.json()) as T;
}

function answerOfType<T extends ServerMessage['type']>(answer: ServerMessage, type: T): Extract<ServerMessage, { type: T }> {
  if (answer.type !== type) throw new Error(`expected ${type}, got ${JSON.stringify(answer).slice(0, 300)}`);
  return answer as Extract<ServerMessage, { type: T }>;
}

/** Wait for the session's run (or rerun) to complete after event `afterSeq`. */
function untilCompletedAfter(client: RawClient, sessionId: string, afterSeq: number, timeoutMs = 30_000): Promise<ServerMessage> {
  return client.client.waitFor(
    (frame) => frame.type === 'session.status' && frame.sessionId === sessionId && frame.status === 'completed' && frame.seq > afterSeq,
    `session ${sessionId} to complete after seq ${afterSeq}`,
    timeoutMs,
  );
}

/**
 * Create a session with the text as its task, let it complete, correct its first thought with the
 * text (noted with the text), and let it complete again; checked on the live stream as it goes.
 */
async function storeText(client: RawClient, name: string, text: string): Promise<StoredText> {
  const created = answerOfType(await client.request({ type: 'session.create', task: text }), 'session.created');
  expect(created.session.task, `live task of ${name}`).toBe(text);
  const sessionId = created.session.sessionId;
  await untilCompletedAfter(client, sessionId, 0);
  const firstStep = client.events(sessionId).find((event) => event.type === 'step.started' && event.step.index === 0);
  if (firstStep?.type !== 'step.started') throw new Error(`session ${name} has no first step`);
  const note = noteFor(text);
  const accepted = answerOfType(
    await client.request({ type: 'step.correct', sessionId, stepId: firstStep.step.stepId, content: text, note, baseRevision: 0 }),
    'correction.accepted',
  );
  const corrected = await client.client.waitFor((frame) => frame.type === 'step.corrected' && frame.step.stepId === accepted.newStepId, `the correction of ${name}`);
  if (corrected.type !== 'step.corrected') throw new Error('unreachable');
  expect(corrected.step.content, `live correction of ${name}`).toBe(text);
  expect(corrected.step.correction?.note, `live note of ${name}`).toBe(note);
  await untilCompletedAfter(client, sessionId, corrected.seq);
  return { name, text, sessionId, correctedStepId: accepted.newStepId };
}

/** Read the session back from every path: the REST list and snapshot, sessions.watch, a WebSocket snapshot and a replay from seq 0. */
async function readEveryPath(server: DurableServer, sessionId: string): Promise<Reading> {
  const reader = await connect(server.wsUrl);
  const page = await getJson<{ sessions: SessionInfo[] }>(`${server.url}/api/sessions?limit=100`);
  const watching = answerOfType(await reader.request({ type: 'sessions.watch', limit: 100 }), 'sessions.watching');
  const restSnapshot = await getJson<SessionSnapshotData>(`${server.url}/api/sessions/${sessionId}`);
  const { requestId: _requestId, ...wsSnapshot } = answerOfType(await reader.subscribe(sessionId), 'session.snapshot');
  const subscribed = answerOfType(await reader.subscribe(sessionId, 0), 'session.subscribed');
  await reader.untilSeq(sessionId, subscribed.lastSeq);
  return {
    listed: page.sessions.find((info) => info.sessionId === sessionId),
    watched: watching.sessions.find((info) => info.sessionId === sessionId),
    restSnapshot,
    wsSnapshot,
    replay: reader.eventTexts(sessionId).slice(-subscribed.lastSeq),
  };
}

/** Every path gives the text back exactly: the task, and the corrected step's content and note. */
function expectExact(stored: StoredText, reading: Reading, when: string): void {
  const { name, text, correctedStepId } = stored;
  const what = (path: string) => `${path} of ${name} ${when}`;
  const isCorrected = (step: Step) => step.stepId === correctedStepId;
  expect(reading.listed?.task, what('GET /api/sessions task')).toBe(text);
  expect(reading.watched?.task, what('sessions.watch task')).toBe(text);
  for (const [path, snapshot] of [['GET /api/sessions/:id', reading.restSnapshot], ['session.snapshot', reading.wsSnapshot]] as const) {
    expect(snapshot.session.task, what(`${path} task`)).toBe(text);
    const step = snapshot.steps.find(isCorrected);
    expect(step?.content, what(`${path} correction`)).toBe(text);
    expect(step?.correction?.note, what(`${path} note`)).toBe(noteFor(text));
  }
  const events = reading.replay.map((frame) => JSON.parse(frame) as SessionEvent);
  const corrected = events.find((event) => event.type === 'step.corrected' && isCorrected(event.step));
  expect(corrected?.type === 'step.corrected' && corrected.step.content, what('replayed correction')).toBe(text);
  expect(corrected?.type === 'step.corrected' && corrected.step.correction?.note, what('replayed note')).toBe(noteFor(text));
  expect(expectWholeLog(stored.sessionId, events).steps.get(correctedStepId)?.content, what('folded replay')).toBe(text);
}

async function readAll(server: DurableServer, stored: readonly StoredText[]): Promise<Reading[]> {
  const readings: Reading[] = [];
  for (const entry of stored) readings.push(await readEveryPath(server, entry.sessionId));
  return readings;
}

describe('exact text through SQLite and restarts', () => {
  it('gives tricky tasks, corrections and notes back unchanged from every path, live, after a graceful restart and after kill -9', { timeout: 90_000 }, async () => {
    expect(LONGEST).toHaveLength(FIELD_LIMITS.taskMax);
    const env = { INTERTHOUGHT_DB: folder.file('sessions.db'), INTERTHOUGHT_TOKEN_DELAY_MS: '0', INTERTHOUGHT_MAX_SESSIONS_PER_CONNECTION: '100' };
    const first = await startDurableServer(env);
    const writer = await connect(first.wsUrl);
    // The list pushes are a live path too: every `sessions.changed` carries the task.
    answerOfType(await writer.request({ type: 'sessions.watch' }), 'sessions.watching');
    const stored = await Promise.all(Object.entries(TRICKY_TEXTS).map(([name, text]) => storeText(writer, name, text)));
    for (const { name, text, sessionId } of stored) {
      const pushes = writer.client.frames.filter((frame) => frame.type === 'sessions.changed' && frame.session.sessionId === sessionId);
      expect(pushes.length, `sessions.changed of ${name}`).toBeGreaterThan(0);
      for (const push of pushes) expect(push.type === 'sessions.changed' && push.session.task, `sessions.changed task of ${name}`).toBe(text);
    }
    const live = await readAll(first, stored);
    stored.forEach((entry, index) => expectExact(entry, live[index]!, 'before any restart'));
    expect(await first.stop()).toBe(0);

    const second = await startDurableServer(env);
    const afterStop = await readAll(second, stored);
    stored.forEach((entry, index) => expectExact(entry, afterStop[index]!, 'after a graceful restart'));
    // Not just equal text: every path answers exactly as before, the log byte for byte.
    expect(afterStop).toEqual(live);
    // Written just before the crash: one more session of all the texts at once.
    const lateWriter = await connect(second.wsUrl);
    const allAtOnce = Object.values(TRICKY_TEXTS).filter((text) => text !== LONGEST).join('\u0000|\r\n');
    const late = await storeText(lateWriter, 'all at once', allAtOnce);
    const lateLive = await readEveryPath(second, late.sessionId);
    expectExact(late, lateLive, 'before the crash');
    await second.crash();

    const third = await startDurableServer(env);
    const afterCrash = await readAll(third, [...stored, late]);
    [...stored, late].forEach((entry, index) => expectExact(entry, afterCrash[index]!, 'after kill -9'));
    expect(afterCrash).toEqual([...live, lateLive]);
    expect(await third.stop()).toBe(0);
  });

  it('refuses a task, a correction or a note with a lone surrogate with BAD_FRAME naming the field, and stores nothing, across a restart', { timeout: 60_000 }, async () => {
    const env = { INTERTHOUGHT_DB: folder.file('sessions.db'), INTERTHOUGHT_TOKEN_DELAY_MS: '0' };
    const first = await startDurableServer(env);
    const client = await connect(first.wsUrl);
    const kept = await storeText(client, 'kept', TRICKY_TEXTS.astral!);
    const before = await readEveryPath(first, kept.sessionId);
    const expectRefused = (answer: ServerMessage, id: string, field: string) => {
      expect(answer).toMatchObject({ type: 'error', code: 'BAD_FRAME', requestId: id, details: [{ path: [field] }] });
      expect(answer.type === 'error' && answer.message).toContain(`${field} has a lone UTF-16 surrogate`);
    };

    const loneTasks = ['a lone high \ud800 in the middle', 'ends with a lone low \udc00', '\ude00\ud83d: a pair in the wrong order', `${LONGEST.slice(0, -1)}\ud83d`];
    for (const task of loneTasks) {
      const id = client.client.send({ type: 'session.create', task });
      expectRefused(await client.client.answerTo(id), id, 'task');
    }
    // Escaped by hand, in upper case, rather than by JSON.stringify.
    client.client.sendRaw('{"type":"session.create","id":"by-hand","task":"escaped \\uD800 by hand"}');
    expectRefused(await client.client.answerTo('by-hand'), 'by-hand', 'task');

    const correction = { type: 'step.correct', sessionId: kept.sessionId, stepId: kept.correctedStepId, baseRevision: 1 };
    const badContent = client.client.send({ ...correction, content: 'corrected \udbff', note: 'fine' });
    expectRefused(await client.client.answerTo(badContent), badContent, 'content');
    const badNote = client.client.send({ ...correction, content: 'corrected, fine', note: 'the reason \udfff' });
    expectRefused(await client.client.answerTo(badNote), badNote, 'note');

    // Nothing was stored: no session was created, the corrected step is as it was, the log has no new event.
    expect(client.client.frames.filter((frame) => frame.type === 'session.created')).toHaveLength(1);
    const after = await readEveryPath(first, kept.sessionId);
    expect(after).toEqual(before);
    const listed = await getJson<{ sessions: SessionInfo[] }>(`${first.url}/api/sessions?limit=100`);
    expect(listed.sessions.map((info) => info.sessionId)).toEqual([kept.sessionId]);
    expect(await first.stop()).toBe(0);

    const second = await startDurableServer(env);
    expect(await readEveryPath(second, kept.sessionId)).toEqual(before);
    const relisted = await getJson<{ sessions: SessionInfo[] }>(`${second.url}/api/sessions?limit=100`);
    expect(relisted.sessions).toEqual(listed.sessions);
    expect(await second.stop()).toBe(0);
  });
});
