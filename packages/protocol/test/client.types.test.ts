import { describe, expect, expectTypeOf, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  InterthoughtClient,
  type CorrectionAccepted,
  type SessionCreated,
  type SessionDeletedEvent,
  type SessionSnapshot,
  type SessionStatusEvent,
  type SessionSubscribed,
  type SessionUnsubscribed,
  type WebSocketConstructor,
} from '../src/index.js';

describe('InterthoughtClient types', () => {
  it('accepts the WebSocket of the ws package', () => {
    expectTypeOf(WebSocket).toExtend<WebSocketConstructor>();
  });

  it('types each answer from its request type, and refuses requests that are not in the protocol', async () => {
    const client = new InterthoughtClient({ url: 'ws://127.0.0.1:9/ws', WebSocket });
    const requests = {
      correct: client.request({ type: 'step.correct', sessionId: 's', stepId: 't', content: 'x' }),
      subscribe: client.request({ type: 'session.subscribe', sessionId: 's' }),
      unsubscribe: client.request({ type: 'session.unsubscribe', sessionId: 's' }),
      pause: client.request({ type: 'session.pause', sessionId: 's' }),
      delete: client.request({ type: 'session.delete', sessionId: 's' }),
      create: client.createSession('task'),
    };
    expectTypeOf(requests.correct).resolves.toEqualTypeOf<CorrectionAccepted>();
    expectTypeOf(requests.subscribe).resolves.toEqualTypeOf<SessionSnapshot | SessionSubscribed>();
    expectTypeOf(requests.unsubscribe).resolves.toEqualTypeOf<SessionUnsubscribed>();
    expectTypeOf(requests.pause).resolves.toEqualTypeOf<SessionStatusEvent>();
    expectTypeOf(requests.delete).resolves.toEqualTypeOf<SessionDeletedEvent>();
    expectTypeOf(requests.create).resolves.toEqualTypeOf<SessionCreated>();

    const refused = [
      // @ts-expect-error not a request type
      client.request({ type: 'session.rename', sessionId: 's' }),
      // @ts-expect-error a required field is missing
      client.request({ type: 'step.correct', sessionId: 's' }),
      // @ts-expect-error unknown fields are refused by the server, and by the types
      client.request({ type: 'session.pause', sessionId: 's', force: true }),
    ];
    // The client was never connected: every request fails at once, none is sent.
    for (const request of [...Object.values(requests), ...refused]) await expect(request).rejects.toMatchObject({ code: 'DISCONNECTED' });
  });
});
