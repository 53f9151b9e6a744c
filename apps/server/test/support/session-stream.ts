import { applyEvents, chainSteps, createSessionState, type SessionEvent, type SessionState } from '@interthought/protocol';
import { expect } from 'vitest';
import { TestClient } from './ws-client.js';

/** Fold events with the protocol's reducer (throws on a gap, a replay or an event that does not fit). */
export function foldEvents(sessionId: string, events: readonly SessionEvent[]): SessionState {
  const state = createSessionState({ sessionId, task: '', agent: '', status: 'running', revision: 0, createdAt: '' });
  return applyEvents(state, events);
}

/** A whole run as a client must see it: seq 1…n without gaps, folding cleanly, ending `completed` on a final answer. */
export function expectCompleteStream(sessionId: string, events: readonly SessionEvent[]): SessionState {
  expect(events.length).toBeGreaterThan(0);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  const state = foldEvents(sessionId, events);
  expect(state.session.status).toBe('completed');
  expect(chainSteps(state).at(-1)?.kind).toBe('final_answer');
  return state;
}

/**
 * A second client running its own session on the same server. The tests that abuse the server
 * assert, at the end, that this stream was still going and then went through completely, in
 * order and without an error.
 */
export interface Bystander {
  client: TestClient;
  sessionId: string;
  /** Resolves with every event once the session completed; call it after the abuse. */
  finish(): Promise<SessionEvent[]>;
}

/** Paced so the bystander's run (about 60 tokens) outlasts the abuse that follows. */
export const BYSTANDER_TOKEN_DELAY_MS = 30;

export async function startBystander(wsUrl: string, tokenDelayMs = BYSTANDER_TOKEN_DELAY_MS): Promise<Bystander> {
  const client = await TestClient.connect(wsUrl);
  await client.waitForType('hello');
  const sessionId = await client.createSession('Bystander: what is 17 * 23?', { options: { tokenDelayMs } });
  await client.waitForType('step.delta', (frame) => frame.sessionId === sessionId);
  return {
    client,
    sessionId,
    async finish() {
      const seenDuringAbuse = client.events(sessionId).length;
      const events = await client.untilFinished(sessionId, 30_000);
      // Events kept arriving after the abuse: the stream really overlapped it.
      expect(events.length).toBeGreaterThan(seenDuringAbuse);
      expect(client.frames.filter((frame) => frame.type === 'error')).toEqual([]);
      expect(client.closeInfo).toBeUndefined();
      expectCompleteStream(sessionId, events);
      await client.close();
      return events;
    },
  };
}
