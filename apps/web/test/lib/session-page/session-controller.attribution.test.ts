import type { Hello, InterthoughtClient } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { Announcer } from '$lib/app/announcer.svelte.js';
import { OwnConnections } from '$lib/app/own-connections.js';
import { Toaster } from '$lib/app/toaster.svelte.js';
import { I18n } from '$lib/i18n/index.js';
import { SessionController } from '$lib/session-page/session-controller.svelte.js';

/** A controller whose connection said `hello` (never started: only who is who is asked). */
function controllerWith(hello: Partial<Hello>) {
  const client = { hello: { connectionId: 'c_this', ...hello }, subscribe: () => () => {}, request: async () => undefined } as unknown as Pick<InterthoughtClient, 'subscribe' | 'request' | 'hello'>;
  return new SessionController({ client, i18n: new I18n({ languages: ['en'] }), toaster: new Toaster(), announcer: new Announcer(), ownConnections: new OwnConnections(null) }, 's1');
}

describe('SessionController attribution (PROTOCOL.md §21.2)', () => {
  it('counts every connection as this user when the server has no users: another browser or profile is still you', () => {
    const controller = controllerWith({});
    expect(controller.isOwnConnection('c_219LnytGXEyH')).toBe(true);
    expect(controller.isOwnConnection('share:sh_1')).toBe(false);
    expect(controller.isOwnConnection('server')).toBe(false);
    expect(controller.isOwnConnection(undefined)).toBe(false);
  });

  it('counts only the signed-in user (and this browser) when the server tells users apart', () => {
    const controller = controllerWith({ user: { id: 'u-ada', name: 'Ada', admin: false } });
    expect(controller.isOwnConnection('u-ada')).toBe(true);
    expect(controller.isOwnConnection('u-bob')).toBe(false);
    expect(controller.isOwnConnection('c_this')).toBe(true);
  });

  it('does not take the owner for a share link’s holder', () => {
    const controller = controllerWith({ share: { sessionId: 's1', shareId: 'sh_1', role: 'editor' } });
    expect(controller.isOwnConnection('c_owner')).toBe(false);
  });
});
