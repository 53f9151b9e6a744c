import { describe, expect, it } from 'vitest';
import { attributionOf, isShareActor, shareActor } from '../src/index.js';

describe('attributionOf', () => {
  it('says "you" for any connection id when the server has no users', () => {
    expect(attributionOf('c_219LnytGXEyH', undefined, {})).toEqual({ kind: 'you' });
  });

  it('names another user and says "you" for the reader', () => {
    const reader = { userId: 'u-ada' };
    expect(attributionOf('u-ada', 'Ada', reader)).toEqual({ kind: 'you' });
    expect(attributionOf('u-bob', 'Bob', reader)).toEqual({ kind: 'user', name: 'Bob' });
    expect(attributionOf('c_old', undefined, reader)).toEqual({ kind: 'someone' });
  });

  it('says a share link for a link holder, whoever reads', () => {
    const by = shareActor('sh_Vd7KcW4aM1x8Tn0y');
    expect(isShareActor(by)).toBe(true);
    expect(attributionOf(by, undefined, {})).toEqual({ kind: 'share-link' });
    expect(attributionOf(by, undefined, { userId: 'u-ada' })).toEqual({ kind: 'share-link' });
  });

  it('calls a connection id the owner when the reader came by a link', () => {
    expect(attributionOf('c_219LnytGXEyH', undefined, { shareId: 'sh_1' })).toEqual({ kind: 'owner' });
  });

  it('keeps deciders apart from people', () => {
    expect(attributionOf('server', undefined, {})).toEqual({ kind: 'decider', decider: 'server' });
    expect(attributionOf('policy', undefined, {})).toEqual({ kind: 'decider', decider: 'policy' });
    expect(attributionOf(undefined, undefined, {})).toEqual({ kind: 'someone' });
  });
});
