import { describe, expect, it } from 'vitest';
import { correctionsOffered } from '$lib/corrections/corrections-offered.js';
import { testHello } from '../../support/app.js';

describe('the way to the Corrections page', () => {
  it('is offered when the server announces corrections-data', () => {
    expect(correctionsOffered(testHello({ capabilities: ['users', 'sharing', 'corrections-data'] }))).toBe(true);
  });

  it('is not offered by an older server, nor before the hello', () => {
    expect(correctionsOffered(testHello())).toBe(false);
    expect(correctionsOffered(undefined)).toBe(false);
  });

  it('is not offered to a share link’s holder, whom the list refuses', () => {
    const share = { sessionId: 'qhIGZHv58RpuAolAU69Ni', shareId: 'shareId000000000000', role: 'editor' as const };
    expect(correctionsOffered(testHello({ capabilities: ['sharing', 'corrections-data'], share }))).toBe(false);
  });
});
