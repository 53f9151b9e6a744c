import type { ShareRecord } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import type { SessionAccessFacts as AccessFacts } from '../../src/core/session-service.js';
import { accessOf, type Principal } from '../../src/sharing/access-rules.js';

const NOW = Date.parse('2026-12-01T08:00:00.000Z');
const ada = { id: 'u-ada', name: 'Ada', admin: false };
const bob = { id: 'u-bob', name: 'Bob', admin: false };
const root = { id: 'u-root', name: 'Root', admin: true };
const viewerLink: ShareRecord = { shareId: 'sh_v', role: 'viewer', createdAt: '2026-12-01T07:00:00.000Z', by: 'u-ada' };
const editorLink: ShareRecord = { shareId: 'sh_e', role: 'editor', createdAt: '2026-12-01T07:00:00.000Z', expiresAt: '2026-12-01T09:00:00.000Z', by: 'u-ada' };
const adas: AccessFacts = { owner: { id: 'u-ada', name: 'Ada' }, shares: [viewerLink, editorLink] };
const grant = (record: ShareRecord, sessionId = 's_1') => ({ sessionId, shareId: record.shareId, role: record.role });

describe('who may do what with a session, as its log says (PROTOCOL.md §21.2)', () => {
  const cases: [string, Principal, AccessFacts, boolean, ReturnType<typeof accessOf>][] = [
    ['its owner', { user: ada }, adas, true, 'owner'],
    ['an admin', { user: root }, adas, true, 'owner'],
    ['another user', { user: bob }, adas, true, undefined],
    ['another user holding the viewer link', { user: bob, share: grant(viewerLink) }, adas, true, 'viewer'],
    ['its owner holding the viewer link', { user: ada, share: grant(viewerLink) }, adas, true, 'owner'],
    ['an admin holding the editor link', { user: root, share: grant(editorLink) }, adas, true, 'owner'],
    ['a link alone, viewer', { share: grant(viewerLink) }, adas, true, 'viewer'],
    ['a link alone, editor', { share: grant(editorLink) }, adas, true, 'editor'],
    ['a link to another session', { share: grant(viewerLink, 's_2') }, adas, true, undefined],
    ['a revoked link', { share: grant(viewerLink) }, { ...adas, shares: [editorLink] }, true, undefined],
    ['a link whose role was changed', { share: { ...grant(viewerLink), role: 'editor' } }, adas, true, undefined],
    ['a user, on a session made before users (no owner)', { user: bob }, { shares: [] }, true, undefined],
    ['an admin, on a session with no owner', { user: root }, { shares: [] }, true, 'owner'],
    ['anyone, on a server without users', {}, adas, false, 'owner'],
    ['a link, on a server without users: only as the link says', { share: grant(viewerLink) }, adas, false, 'viewer'],
  ];
  for (const [who, principal, facts, usersOn, expected] of cases) {
    it(`${who}: ${expected ?? 'not even seen'}`, () => {
      expect(accessOf(principal, 's_1', facts, usersOn, NOW)).toBe(expected);
    });
  }

  it('ends an editor link at its expiry', () => {
    expect(accessOf({ share: grant(editorLink) }, 's_1', adas, true, Date.parse('2026-12-01T08:59:59.999Z'))).toBe('editor');
    expect(accessOf({ share: grant(editorLink) }, 's_1', adas, true, Date.parse('2026-12-01T09:00:00.000Z'))).toBeUndefined();
  });
});
