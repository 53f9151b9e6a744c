import { chainSteps, type SessionSnapshotData } from '@interthought/protocol';
import { expect } from 'vitest';
import type { RunningServer } from '../../support/server.js';
import { foldEvents } from '../../support/session-stream.js';
import { TestClient } from '../../support/ws-client.js';

/*
 * Sessions worth exporting, made by real clients against a real server (demo agent), and the
 * REST calls of export and import (PROTOCOL.md §20.5).
 */

export const REJECTION_REASON = 'Work it out by hand, please.';
export const CORRECTION_NOTE = 'Say how it was worked out.';
export const CORRECTED_ANSWER = '15% of 240 is 36, worked out by hand: 240 / 10 = 24, half of that is 12, and 24 + 12 = 36.';

/**
 * A finished session whose calculator call the user rejected with a reason (a refusal observation
 * follows), then whose final answer the user corrected with a note: every decision on its chain.
 */
export async function rejectedThenCorrectedSession(client: TestClient, task = 'What is 15% of 240?'): Promise<string> {
  const sessionId = await client.createSession(task, { options: { approve: 'all' } });
  const requested = await client.waitForType('approval.requested', (frame) => frame.sessionId === sessionId);
  await client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'waiting');
  const reject = client.send({ type: 'tool.reject', sessionId, stepId: requested.stepId, reason: REJECTION_REASON });
  expect(await client.answerTo(reject)).toMatchObject({ type: 'approval.resolved', decision: 'rejected' });
  const events = await client.untilFinished(sessionId);
  const answer = chainSteps(foldEvents(sessionId, events)).at(-1);
  if (answer?.kind !== 'final_answer') throw new Error(`the session did not end in an answer: ${JSON.stringify(answer)}`);
  const correct = client.send({ type: 'step.correct', sessionId, stepId: answer.stepId, content: CORRECTED_ANSWER, note: CORRECTION_NOTE });
  expect(await client.answerTo(correct)).toMatchObject({ type: 'correction.accepted' });
  const lastSeq = events.at(-1)!.seq;
  await client.waitFor((frame) => frame.type === 'session.status' && frame.sessionId === sessionId && frame.status === 'completed' && frame.seq > lastSeq, 'the corrected session to finish');
  return sessionId;
}

/** A session that ran to its answer. */
export async function finishedSession(client: TestClient, task = 'What is 17 * 23?'): Promise<string> {
  const sessionId = await client.createSession(task);
  await client.untilFinished(sessionId);
  return sessionId;
}

export function get(server: RunningServer, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.baseUrl}${path}`, { headers });
}

export function exportOf(server: RunningServer, sessionId: string, format: 'json' | 'md' = 'json'): Promise<Response> {
  return get(server, `/api/sessions/${encodeURIComponent(sessionId)}/export?format=${format}`);
}

export function importBody(server: RunningServer, body: string, contentType = 'application/x-ndjson', headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.baseUrl}/api/sessions/import`, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });
}

export async function snapshotOf(server: RunningServer, sessionId: string): Promise<SessionSnapshotData> {
  const response = await get(server, `/api/sessions/${encodeURIComponent(sessionId)}`);
  expect(response.status).toBe(200);
  return (await response.json()) as SessionSnapshotData;
}

export async function listedIds(server: RunningServer): Promise<string[]> {
  const response = await get(server, '/api/sessions?limit=100');
  const page = (await response.json()) as { sessions: { sessionId: string }[] };
  return page.sessions.map((session) => session.sessionId);
}

/** The NDJSON lines of a body (the last newline ends the last line). */
export function linesOf(text: string): string[] {
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}
