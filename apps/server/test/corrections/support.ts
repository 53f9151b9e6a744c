import { CorrectionPageSchema, PreferenceLineSchema, SftLineSchema, chainSteps, type CorrectionPage, type PreferenceLine, type SftLine, type Step } from '@interthought/protocol';
import { afterAll, beforeAll, expect } from 'vitest';
import { startServer, type RunningServer } from '../support/server.js';
import { foldEvents } from '../support/session-stream.js';
import { TestClient } from '../support/ws-client.js';

/*
 * Corrections as data (PROTOCOL.md §26) from a real client's side: sessions of the demo agent
 * corrected over the WebSocket, then the index read over real HTTP.
 */

export interface Http {
  baseUrl: string;
  headers?: Record<string, string>;
}

/** A finished session of the demo agent and its chain. */
export async function finished(client: TestClient, task: string, options: Record<string, unknown> = {}): Promise<{ sessionId: string; chain: Step[] }> {
  const sessionId = await client.createSession(task, { options: { tokenDelayMs: 0, ...options } });
  const state = foldEvents(sessionId, await client.untilFinished(sessionId));
  return { sessionId, chain: chainSteps(state) };
}

/** Correct a step and wait until the session has run again to its end; the new step's id. */
export async function correct(client: TestClient, sessionId: string, stepId: string, content: string, note?: string): Promise<string> {
  const id = client.send({ type: 'step.correct', sessionId, stepId, content, ...(note === undefined ? {} : { note }) });
  const accepted = await client.answerTo(id);
  if (accepted.type !== 'correction.accepted') throw new Error(`the correction was refused: ${JSON.stringify(accepted)}`);
  const corrected = await client.waitForType('step.corrected', (frame) => frame.sessionId === sessionId && frame.step.stepId === accepted.newStepId);
  await client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.seq > corrected.seq && ['completed', 'failed', 'waiting'].includes(frame.status));
  return accepted.newStepId;
}

/** A session whose calculator call waits for approval; the call's step id. */
export async function waiting(client: TestClient, task: string): Promise<{ sessionId: string; stepId: string; input: unknown }> {
  const sessionId = await client.createSession(task, { options: { approve: 'all', tokenDelayMs: 0 } });
  const requested = await client.waitForType('approval.requested', (frame) => frame.sessionId === sessionId);
  await client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'waiting');
  return { sessionId, stepId: requested.stepId, input: requested.input };
}

/** Refuse the waiting call and wait for the run to finish after the refusal. */
export async function reject(client: TestClient, sessionId: string, stepId: string, reason?: string): Promise<void> {
  const id = client.send({ type: 'tool.reject', sessionId, stepId, ...(reason === undefined ? {} : { reason }) });
  expect(await client.answerTo(id)).toMatchObject({ type: 'approval.resolved', decision: 'rejected' });
  await client.waitForType('session.status', (frame) => frame.sessionId === sessionId && ['completed', 'failed'].includes(frame.status));
}

/** `GET path` as JSON, with its status. */
export async function getJson(http: Http, path: string): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(`${http.baseUrl}${path}`, { headers: http.headers ?? {} });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** `GET /api/corrections?…`, checked against the schema. */
export async function listCorrections(http: Http, query: Record<string, string> = {}): Promise<CorrectionPage> {
  const answer = await getJson(http, `/api/corrections?${new URLSearchParams(query).toString()}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return CorrectionPageSchema.parse(answer.body);
}

/** Every page of `GET /api/corrections`, followed by its cursors. */
export async function allPages(http: Http, query: Record<string, string>): Promise<CorrectionPage[]> {
  const pages: CorrectionPage[] = [];
  let before: string | undefined;
  do {
    const page = await listCorrections(http, { ...query, ...(before === undefined ? {} : { before }) });
    pages.push(page);
    before = page.nextCursor;
  } while (before !== undefined);
  return pages;
}

/** The export's response, its lines parsed and each validated by the format's schema. */
export async function exportLines<F extends 'preference' | 'sft'>(
  http: Http,
  format: F,
  query: Record<string, string> = {},
): Promise<{ lines: (F extends 'preference' ? PreferenceLine : SftLine)[]; response: Response }> {
  const response = await fetch(`${http.baseUrl}/api/corrections/export?${new URLSearchParams({ format, ...query }).toString()}`, { headers: http.headers ?? {} });
  expect(response.status).toBe(200);
  const text = await response.text();
  expect(text === '' || text.endsWith('\n')).toBe(true);
  const schema = format === 'preference' ? PreferenceLineSchema : SftLineSchema;
  const lines = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => schema.parse(JSON.parse(line)) as F extends 'preference' ? PreferenceLine : SftLine);
  return { lines, response };
}

/** A real server (in-memory store, no users) and one client of it, for the file's tests. */
export function useServerAndClient(): { readonly server: RunningServer; readonly client: TestClient; readonly http: Http } {
  let server: RunningServer | undefined;
  let client: TestClient | undefined;
  beforeAll(async () => {
    server = await startServer();
    client = await TestClient.connect(server.wsUrl);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('The server did not start (see the beforeAll error).');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get client() {
      return started(client);
    },
    get http() {
      return { baseUrl: started(server).baseUrl };
    },
  };
}
