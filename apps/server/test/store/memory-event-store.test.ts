import { afterEach, describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { describeStoreContract, type Refusal } from './contract/store-contract.js';

/** The cap the contract's retaining stores get: a trim keeps three quarters of it. */
const MAX_EVENTS = 8;

/** The in-memory store refuses with plain `Error`s; their messages are what callers can tell them by. */
function wording(refusal: Refusal): RegExp {
  switch (refusal.code) {
    case 'SESSION_NOT_FOUND':
      return new RegExp(`^Session ${refusal.sessionId} is not in the store`);
    case 'SESSION_EXISTS':
      return new RegExp(`^Session ${refusal.sessionId} already exists`);
    case 'SEQ_NOT_CONTIGUOUS':
      return new RegExp(`^Session ${refusal.sessionId}: expected seq ${refusal.after + 1} but the batch has ${refusal.got}\\.`);
    case 'STORE_CLOSED':
      return /closed/;
  }
}

const opened: MemoryEventStore[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

describeStoreContract('MemoryEventStore', {
  async open({ retained = false } = {}) {
    const store = new MemoryEventStore(retained ? { maxEventsPerSession: MAX_EVENTS } : {});
    opened.push(store);
    return store;
  },
  retention: { mostKept: MAX_EVENTS, keptAfterTrim: MAX_EVENTS - MAX_EVENTS / 4 },
  async expectRefusal(call, refusal) {
    await expect(call).rejects.toThrow(wording(refusal));
  },
  differences: {
    identicalCreate: 'refused',
    repeatedBatch: 'refused',
    batchWithUnknownSession: 'nothing',
    readsWhenClosed: 'answered',
    sessionOrder: 'creation',
    badLimits: 'not checked',
    warnsOfUnfoldableLog: false,
  },
});

describe('MemoryEventStore options', () => {
  it('refuses a retention below one event', () => {
    expect(() => new MemoryEventStore({ maxEventsPerSession: 0 })).toThrow(RangeError);
  });
});
