import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppendBatch } from '../../src/core/persistence/event-store.js';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';
import {
  CORRECTED_ANSWER,
  CORRECTION_NOTE,
  REJECTION_REASON,
  exportOf,
  finishedSession,
  get,
  linesOf,
  rejectedThenCorrectedSession,
} from './support/exported-sessions.js';

/** A store across a slow network: every append lands a while after it was asked for. */
class SlowAppends extends MemoryEventStore {
  override async appendBatch(batch: AppendBatch): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 50));
    await super.appendBatch(batch);
  }
}

// GET /api/sessions/:id/export (PROTOCOL.md §20.5) against a real server running the demo agent.
describe('GET /api/sessions/:id/export', () => {
  let server: RunningServer;
  let store: MemoryEventStore;
  let client: TestClient;
  beforeAll(async () => {
    store = new MemoryEventStore();
    server = await startServer({}, { store });
    client = await TestClient.connect(server.wsUrl);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
    await store.close();
  });

  it('answers format=json as NDJSON: the header, then every stored event byte for byte', async () => {
    const sessionId = await finishedSession(client);
    const response = await exportOf(server, sessionId);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="interthought-${sessionId}.ndjson"`);
    const lines = linesOf(await response.text());
    const listed = ((await (await get(server, '/api/sessions')).json()) as { sessions: { sessionId: string }[] }).sessions.find((info) => info.sessionId === sessionId);
    expect(JSON.parse(lines[0]!)).toEqual({ type: 'interthought.export', version: 1, session: listed, options: {} });
    const stored = await store.readEventFrames(sessionId, 0);
    expect(lines.slice(1)).toEqual(stored);
    expect(lines.slice(1).map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual(stored.map((_, index) => index + 1));
  });

  it('exports json when no format is named, with the options the session was created with', async () => {
    const sessionId = await rejectedThenCorrectedSession(client);
    const response = await get(server, `/api/sessions/${sessionId}/export`);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const header = JSON.parse(linesOf(await response.text())[0]!) as { options: unknown; session: { revision: number } };
    expect(header).toMatchObject({ options: { approve: 'all' }, session: { revision: 1 } });
  });

  it('includes the events the core queued and has not written yet', async () => {
    const slow = await startServer({}, { store: new SlowAppends() });
    // The answer of create comes before its first event is written: the outbox writes asynchronously.
    const info = await slow.app.sessions.create({ task: 'What is 3 + 4?', options: { tokenDelayMs: 200 } });
    const response = await exportOf(slow, info.sessionId);
    const events = linesOf(await response.text()).slice(1);
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.parse(events[0]!)).toMatchObject({ type: 'session.status', seq: 1, status: 'running' });
    await slow.app.sessions.cancel(info.sessionId);
    await slow.close();
  });

  it('answers format=md with a transcript of the current chain: the task, each step, the rejection, the refusal, the correction, the status', async () => {
    const sessionId = await rejectedThenCorrectedSession(client);
    const response = await exportOf(server, sessionId, 'md');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await response.text();
    const connectionId = (await client.waitForType('hello')).connectionId as string;
    expect(text.startsWith('# What is 15% of 240?\n')).toBe(true);
    const order = ['### Step 1 · Thought', '### Step 2 · Action', '### Step 3 · Tool call · `calculator`', '```json\n{\n  "expression": "240 * 15%"\n}\n```', '**Rejected** by', '· Observation · `calculator`', '**Refused**', '· Answer', CORRECTED_ANSWER, '**Corrected** by', '**Status:** completed'];
    const positions = order.map((part) => text.indexOf(part));
    expect(positions.every((position) => position >= 0), `missing: ${order.filter((_, index) => positions[index]! < 0).join(', ')}`).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    // No users: the reader made every decision (PROTOCOL.md §21.2); no connection id, no raw ISO time.
    expect(text).toMatch(/> \*\*Rejected\*\* by you at [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2}\s[AP]M\./);
    expect(text).not.toContain(connectionId);
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:/);
    expect(text).toContain('times in UTC');
    expect(text).toContain(`Reason: “${REJECTION_REASON}”`);
    expect(text).toContain(`Note: “${CORRECTION_NOTE}”`);
    // The earlier answer, quoted under the correction; the invalidated one is not a step of the transcript.
    expect(text).toMatch(/> > You declined the calculator call/);
    expect(text.match(/^### Step \d+ · Answer$/gm)).toHaveLength(1);
  });

  it('writes the transcript for the reader’s zone and language (tz, lang) and refuses a zone Intl does not know', async () => {
    const sessionId = await rejectedThenCorrectedSession(client);
    const zh = await (await get(server, `/api/sessions/${sessionId}/export?format=md&tz=Asia/Shanghai&lang=zh`)).text();
    expect(zh).toContain('### 第 1 步 · 思考');
    expect(zh).toContain('时间为 Asia/Shanghai');
    expect(zh).toMatch(/> \*\*已拒绝\*\*：由你于 \d{4}年\d{1,2}月\d{1,2}日 \d{2}:\d{2}:\d{2}。/);
    const berlin = await (await get(server, `/api/sessions/${sessionId}/export?format=md&tz=${encodeURIComponent('Europe/Berlin')}`)).text();
    expect(berlin).toContain('times in Europe/Berlin');
    for (const query of ['tz=Mars/Olympus', 'lang=fr']) {
      const response = await get(server, `/api/sessions/${sessionId}/export?format=md&${query}`);
      expect(response.status, query).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'BAD_REQUEST' });
    }
  });

  it('answers 404 SESSION_NOT_FOUND for an unknown session, in either format', async () => {
    for (const format of ['json', 'md'] as const) {
      const response = await exportOf(server, 'no-such-session', format);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ code: 'SESSION_NOT_FOUND', message: expect.stringContaining('no-such-session') });
    }
  });

  it('refuses a format it does not know with 400 BAD_REQUEST', async () => {
    const sessionId = await finishedSession(client, 'What is 2 + 2?');
    for (const format of ['csv', 'JSON', '']) {
      const response = await get(server, `/api/sessions/${sessionId}/export?format=${format}`);
      expect(response.status, format).toBe(400);
      expect(await response.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('format') });
    }
  });
});
