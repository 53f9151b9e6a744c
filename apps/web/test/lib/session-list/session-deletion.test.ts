import type { InterthoughtClient, SessionInfo } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { Toaster } from '$lib/app/toaster.svelte.js';
import { I18n } from '$lib/i18n/index.js';
import { SessionDeletion } from '$lib/session-list/session-deletion.svelte.js';
import { SessionList } from '$lib/session-list/session-list.svelte.js';
import { useConnectedClient, type ScriptedServer } from '../../support/scripted-server.js';

let server: ScriptedServer;
let client: InterthoughtClient;
useConnectedClient((started, connected) => {
  server = started;
  client = connected;
});

const info = (sessionId: string): SessionInfo => ({ sessionId, task: `task ${sessionId}`, agent: 'demo', status: 'completed', revision: 0, createdAt: '2025-01-01T00:00:00Z' });

function deletionWith(locale: 'en' | 'zh' = 'en') {
  const sessionList = new SessionList(client, { sessions: () => Promise.reject(new TypeError('no older pages in this test')) });
  sessionList.upsert(info('a'));
  sessionList.upsert(info('b'));
  const toaster = new Toaster();
  const left: string[] = [];
  const deletion = new SessionDeletion({ client, sessionList, toaster, i18n: new I18n({ languages: [locale] }), onDeleted: (id) => left.push(id) });
  return { deletion, sessionList, toaster, left };
}

describe('SessionDeletion', () => {
  it('sends session.delete through the socket client and, once answered, drops the session and says so', async () => {
    server.answer = (frame, send) => {
      if (frame.type === 'session.delete') send({ type: 'session.deleted', requestId: frame.id, sessionId: frame.sessionId, seq: 9, at: '2025-01-01T00:01:00Z' });
    };
    const { deletion, sessionList, toaster, left } = deletionWith();
    deletion.ask({ sessionId: 'a', task: 'task a' });
    expect(await deletion.confirm()).toBe(true);

    expect(await server.next('session.delete')).toMatchObject({ sessionId: 'a' });
    expect(sessionList.sessions.map((session) => session.sessionId)).toEqual(['b']);
    expect(deletion.asking).toBeNull();
    expect(deletion.pending).toBe(false);
    expect(toaster.toasts).toEqual([expect.objectContaining({ tone: 'info', title: 'Session deleted' })]);
    expect(left).toEqual(['a']);
  });

  it('keeps the confirmation open with the server’s message and a hint when the session is already gone', async () => {
    server.answer = (frame, send) => {
      if (frame.type === 'session.delete') send({ type: 'error', requestId: frame.id, code: 'SESSION_NOT_FOUND', message: 'Session a does not exist.' });
    };
    const { deletion, sessionList, toaster, left } = deletionWith('zh');
    deletion.ask({ sessionId: 'a', task: 'task a' });
    expect(await deletion.confirm()).toBe(false);

    expect(deletion.asking).toEqual({ sessionId: 'a', task: 'task a' });
    expect(deletion.error).toEqual({ code: 'SESSION_NOT_FOUND', message: 'Session a does not exist.', hint: '它已经被删除了（可能是在另一个窗口里），无需再做什么。' });
    expect(deletion.pending).toBe(false);
    // It does not exist any more, so the rail stops offering it; nobody is sent home.
    expect(sessionList.sessions.map((session) => session.sessionId)).toEqual(['b']);
    expect(toaster.toasts).toEqual([]);
    expect(left).toEqual([]);
  });

  it('keeps the session listed when the deletion is refused for another reason', async () => {
    server.answer = (frame, send) => {
      if (frame.type === 'session.delete') send({ type: 'error', requestId: frame.id, code: 'RATE_LIMITED', message: 'Slow down.' });
    };
    const { deletion, sessionList } = deletionWith();
    deletion.ask({ sessionId: 'a', task: 'task a' });
    await deletion.confirm();
    expect(deletion.error?.code).toBe('RATE_LIMITED');
    expect(sessionList.sessions.map((session) => session.sessionId)).toEqual(['b', 'a']);
  });

  it('cannot be dismissed or re-aimed while the request is on its way, and sends it once', async () => {
    let reply: (() => void) | undefined;
    server.answer = (frame, send) => {
      if (frame.type === 'session.delete') reply = () => send({ type: 'session.deleted', requestId: frame.id, sessionId: frame.sessionId, seq: 3, at: '2025-01-01T00:01:00Z' });
    };
    const { deletion } = deletionWith();
    deletion.ask({ sessionId: 'a', task: 'task a' });
    const first = deletion.confirm();
    expect(deletion.pending).toBe(true);
    expect(await deletion.confirm()).toBe(false);
    deletion.dismiss();
    deletion.ask({ sessionId: 'b', task: 'task b' });
    expect(deletion.asking?.sessionId).toBe('a');

    await server.next('session.delete');
    reply?.();
    expect(await first).toBe(true);
    expect(server.received.filter((frame) => frame.type === 'session.delete')).toEqual([]);
  });

  it('does nothing when nothing was asked', async () => {
    const { deletion } = deletionWith();
    expect(await deletion.confirm()).toBe(false);
    deletion.ask({ sessionId: 'a', task: 'task a' });
    deletion.dismiss();
    expect(deletion.asking).toBeNull();
  });
});
