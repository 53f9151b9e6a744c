import { describe, expect, it } from 'vitest';
import { accessAllows, accessOf, isConfinedToShare, linkRoleOf, shareStanding, type AccessFacts, type Principal, type SessionAccess, type ShareRecord } from '../src/index.js';

const NOW = Date.parse('2026-12-01T08:00:00.000Z');
const ada = { id: 'u-ada', admin: false };
const bob = { id: 'u-bob', admin: false };
const root = { id: 'u-root', admin: true };
const viewerLink: ShareRecord = { shareId: 'sh_v', role: 'viewer', createdAt: '2026-12-01T07:00:00.000Z', by: 'u-ada' };
const editorLink: ShareRecord = { shareId: 'sh_e', role: 'editor', createdAt: '2026-12-01T07:00:00.000Z', expiresAt: '2026-12-01T09:00:00.000Z', by: 'u-ada' };
const shares = [viewerLink, editorLink];
const grant = (record: ShareRecord, sessionId = 's_1') => ({ sessionId, shareId: record.shareId, role: record.role });
const adas = { id: 'u-ada', name: 'Ada' };

/** The facts of session s_1 for `principal`, its link judged by the session's log at NOW. */
function facts(principal: Principal, owner: AccessFacts['owner'] = adas, log: readonly ShareRecord[] = shares): AccessFacts {
  return { owner, linkRole: linkRoleOf(principal.share, 's_1', log, NOW) };
}

describe('who may do what with a session (PROTOCOL.md §21.2)', () => {
  const users = { undefined, ada, bob, root } as const;
  const links = { none: undefined, viewer: grant(viewerLink), editor: grant(editorLink), elsewhere: grant(viewerLink, 's_2') } as const;
  // Every user (none, the owner, another, an admin) with every link (none, viewer, editor, one to another session), users on.
  const expected: Record<keyof typeof users, Record<keyof typeof links, SessionAccess | undefined>> = {
    undefined: { none: undefined, viewer: 'viewer', editor: 'editor', elsewhere: undefined },
    ada: { none: 'owner', viewer: 'owner', editor: 'owner', elsewhere: 'owner' },
    bob: { none: undefined, viewer: 'viewer', editor: 'editor', elsewhere: undefined },
    root: { none: 'owner', viewer: 'owner', editor: 'owner', elsewhere: 'owner' },
  };
  for (const [who, user] of Object.entries(users) as [keyof typeof users, (typeof users)[keyof typeof users]][]) {
    for (const [link, share] of Object.entries(links) as [keyof typeof links, (typeof links)[keyof typeof links]][]) {
      const want = expected[who][link];
      it(`gives ${who === 'undefined' ? 'no user' : who} holding ${link === 'none' ? 'no link' : `the ${link} link`}: ${want ?? 'nothing (not even seen)'}`, () => {
        const principal = { user, share };
        expect(accessOf(principal, facts(principal), true)).toBe(want);
      });
    }
  }

  it('keeps an owner or admin who also holds a link at owner: a link never lowers access', () => {
    for (const user of [ada, root]) {
      const principal = { user, share: grant(viewerLink) };
      expect(accessOf(principal, facts(principal), true)).toBe('owner');
    }
  });

  it('lets everyone own every session on a server without users, but holds a link to its session and role', () => {
    expect(accessOf({}, facts({}), false)).toBe('owner');
    expect(accessOf({}, facts({}, undefined), false)).toBe('owner');
    for (const share of [grant(viewerLink), grant(editorLink)]) expect(accessOf({ share }, facts({ share }), false)).toBe(share.role);
    expect(accessOf({ share: grant(viewerLink, 's_2') }, facts({ share: grant(viewerLink, 's_2') }), false)).toBeUndefined();
  });

  it('shows a session made before users (no owner) to admins only, and to the holders of its links', () => {
    expect(accessOf({ user: bob }, facts({ user: bob }, undefined), true)).toBeUndefined();
    expect(accessOf({ user: root }, facts({ user: root }, undefined), true)).toBe('owner');
    const linked = { user: bob, share: grant(editorLink) };
    expect(accessOf(linked, facts(linked, undefined), true)).toBe('editor');
  });

  it('gives nothing for a revoked link, a link whose role changed, or an expired one', () => {
    const revoked = { share: grant(viewerLink) };
    expect(accessOf(revoked, facts(revoked, adas, [editorLink]), true)).toBeUndefined();
    const changed = { share: { ...grant(viewerLink), role: 'editor' as const } };
    expect(accessOf(changed, facts(changed), true)).toBeUndefined();
    expect(shareStanding(grant(editorLink), 's_1', shares, Date.parse('2026-12-01T08:59:59.999Z'))).toBe('active');
    expect(shareStanding(grant(editorLink), 's_1', shares, Date.parse('2026-12-01T09:00:00.000Z'))).toBe('expired');
    expect(shareStanding(grant(viewerLink), 's_1', [editorLink], NOW)).toBe('revoked');
    expect(shareStanding(grant(viewerLink, 's_2'), 's_1', shares, NOW)).toBe('revoked');
    expect(linkRoleOf(grant(editorLink), 's_1', shares, Date.parse('2026-12-01T09:00:00.000Z'))).toBeUndefined();
  });

  it('confines a link without a user to that link', () => {
    expect(isConfinedToShare({ share: grant(viewerLink) })).toBe(true);
    expect(isConfinedToShare({ user: bob, share: grant(viewerLink) })).toBe(false);
    expect(isConfinedToShare({ user: bob })).toBe(false);
    expect(isConfinedToShare({})).toBe(false);
  });

  it('ranks needs: a viewer sees, an editor steers, only an owner owns', () => {
    expect([accessAllows('viewer', 'see'), accessAllows('viewer', 'steer'), accessAllows('viewer', 'own')]).toEqual([true, false, false]);
    expect([accessAllows('editor', 'see'), accessAllows('editor', 'steer'), accessAllows('editor', 'own')]).toEqual([true, true, false]);
    expect([accessAllows('owner', 'see'), accessAllows('owner', 'steer'), accessAllows('owner', 'own')]).toEqual([true, true, true]);
  });
});
