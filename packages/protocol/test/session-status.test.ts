import { describe, expect, it } from 'vitest';
import { ACTIVE_STATUSES, LIVE_STATUSES, SessionStatusSchema, isActive, isLive } from '../src/index.js';

describe('status predicates shared by the server and the UI', () => {
  it('counts running and paused sessions as active: they have a run, or may get it back', () => {
    expect(SessionStatusSchema.options.filter(isActive)).toEqual(['running', 'paused']);
    expect([...ACTIVE_STATUSES]).toEqual(['running', 'paused']);
  });

  it('counts active sessions and those waiting for a decision as live', () => {
    expect(SessionStatusSchema.options.filter(isLive)).toEqual(['running', 'paused', 'waiting']);
    expect([...LIVE_STATUSES]).toEqual(['running', 'paused', 'waiting']);
  });

  it('counts no unknown status as either', () => {
    expect([isActive(undefined), isLive(undefined)]).toEqual([false, false]);
  });
});
