import { describe, expect, it, vi } from 'vitest';
import { SessionMirror, type SessionUpdate } from '../src/index.js';
import { clientOf, describeUpdates, useScriptedServer } from './support/clients.js';
import type { EventBody, ScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
useScriptedServer((started) => (server = started));

const status = (value: 'running' | 'paused'): EventBody => ({ type: 'session.status', status: value });
/** An event type a newer server might add: it takes a seq like any session event. */
const futureEvent = { type: 'session.note', text: 'from a newer server' } as unknown as EventBody;

describe('events of a type this version does not know (a newer server)', () => {
  it('are passed on in order, so the events after them are not mistaken for a gap', async () => {
    server.addSession('sess_1');
    const client = clientOf(server);
    await client.connect();
    const updates: SessionUpdate[] = [];
    client.subscribe('sess_1', (update) => updates.push(update));
    await vi.waitFor(() => expect(updates).toHaveLength(1));

    server.emit('sess_1', status('running'));
    server.emit('sess_1', futureEvent);
    server.emit('sess_1', status('paused'));

    await vi.waitFor(() => expect(describeUpdates(updates)).toEqual(['snapshot@0', 'session.status@1', 'session.note@2', 'session.status@3']));
    // One subscribe: the unknown event did not send the client back to resubscribe.
    expect(server.requests('session.subscribe')).toHaveLength(1);
  });

  it('keep a SessionMirror in step: the reducer only advances seq for them', async () => {
    server.addSession('sess_1');
    const client = clientOf(server);
    await client.connect();
    const mirror = new SessionMirror(client, 'sess_1');
    await vi.waitFor(() => expect(mirror.state?.seq).toBe(0));

    server.emit('sess_1', status('running'));
    server.emit('sess_1', futureEvent);
    server.emit('sess_1', status('paused'));

    await vi.waitFor(() => expect(mirror.state?.seq).toBe(3));
    expect(mirror.state?.session.status).toBe('paused');
    expect(mirror.resyncs).toBe(0);
    expect(server.requests('session.subscribe')).toHaveLength(1);
  });
});
