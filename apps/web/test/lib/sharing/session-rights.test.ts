import { describe, expect, it } from 'vitest';
import { FULL_RIGHTS, sessionRights } from '$lib/sharing/session-rights.js';
import { testHello } from '../../support/app.js';

const ada = { id: 'u-ada', name: 'Ada' };
const bob = { id: 'u-bob', name: 'Bob' };

describe('sessionRights', () => {
  it('lets everyone do everything on a server without users, sharing only behind the shared token of a server that offers it', () => {
    expect(sessionRights({ hello: testHello(), sessionId: 's1', owner: undefined, auth: 'none' })).toEqual(FULL_RIGHTS);
    expect(sessionRights({ hello: testHello({ capabilities: [] }), sessionId: 's1', owner: undefined, auth: 'token' })).toEqual(FULL_RIGHTS);
    expect(sessionRights({ hello: testHello(), sessionId: 's1', owner: undefined, auth: 'token' })).toEqual({ ...FULL_RIGHTS, share: true });
  });

  it('lets the owner and an admin steer, fork, delete and share; another user only watch', () => {
    const owner = sessionRights({ hello: testHello({ user: ada }), sessionId: 's1', owner: ada });
    expect(owner).toEqual({ role: 'owner', steer: true, fork: true, remove: true, share: true, import: true });
    expect(sessionRights({ hello: testHello({ user: { ...bob, admin: true } }), sessionId: 's1', owner: ada })).toEqual(owner);
    expect(sessionRights({ hello: testHello({ user: bob }), sessionId: 's1', owner: ada })).toMatchObject({ role: 'viewer', steer: false, remove: false, share: false });
  });

  it('holds a share link’s holder to its role: an editor steers but never deletes, shares or forks', () => {
    const grant = { sessionId: 's1', shareId: 'sh1' };
    expect(sessionRights({ hello: testHello({ share: { ...grant, role: 'editor' } }), sessionId: 's1', owner: ada })).toEqual({
      role: 'editor',
      steer: true,
      fork: false,
      remove: false,
      share: false,
      import: false,
    });
    expect(sessionRights({ hello: testHello({ user: bob, share: { ...grant, role: 'viewer' } }), sessionId: 's1', owner: ada })).toEqual({
      role: 'viewer',
      steer: false,
      fork: false,
      remove: false,
      share: false,
      import: false,
    });
    // A link to another session gives nothing on this one.
    expect(sessionRights({ hello: testHello({ share: { ...grant, role: 'editor' } }), sessionId: 's2', owner: undefined }).steer).toBe(false);
  });

  it('leaves the owner or an admin who also holds a link every right, as the server does (a link never lowers access)', () => {
    const grant = { sessionId: 's1', shareId: 'sh1', role: 'viewer' as const };
    const owner = sessionRights({ hello: testHello({ user: ada }), sessionId: 's1', owner: ada });
    expect(sessionRights({ hello: testHello({ user: ada, share: grant }), sessionId: 's1', owner: ada })).toEqual(owner);
    expect(sessionRights({ hello: testHello({ user: { ...bob, admin: true }, share: grant }), sessionId: 's1', owner: ada })).toEqual(owner);
  });

  it('assumes the user’s own session until its owner is known, unless a link already says less', () => {
    const grant = { sessionId: 's1', shareId: 'sh1', role: 'viewer' as const };
    expect(sessionRights({ hello: testHello({ user: bob }), sessionId: 's1', owner: undefined, pending: true }).role).toBe('owner');
    expect(sessionRights({ hello: testHello({ user: bob, share: grant }), sessionId: 's1', owner: undefined, pending: true }).role).toBe('viewer');
    // Known to have no owner (made before users): only an admin may act on it.
    expect(sessionRights({ hello: testHello({ user: bob }), sessionId: 's1', owner: undefined }).role).toBe('viewer');
  });

  it('shows no editing control before the hello when the tab opened the session with a link', () => {
    expect(sessionRights({ hello: undefined, sessionId: 's1', owner: undefined, expectShare: true }).steer).toBe(false);
    expect(sessionRights({ hello: undefined, sessionId: 's1', owner: undefined })).toEqual(FULL_RIGHTS);
  });
});
