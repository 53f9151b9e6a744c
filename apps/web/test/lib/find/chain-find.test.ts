import { describe, expect, it } from 'vitest';
import { SessionView } from '$lib/chain/session-view.svelte.js';
import { ChainFind } from '$lib/find/chain-find.svelte.js';
import { EventLog, ManualFrames } from '../../support/session-events.js';

function setup() {
  const log = new EventLog();
  const frames = new ManualFrames();
  const session = new SessionView(log.sessionId, { schedule: frames.schedule });
  session.loadSnapshot(log.emptySnapshot());
  let seen = 0;
  const flush = () => {
    for (const event of log.events.slice(seen)) session.enqueue(event);
    seen = log.events.length;
    frames.run();
  };
  const find = new ChainFind(session);
  // What the page's effects do while searching: recount the steps each flush changed.
  session.onStepsChanged((ids) => find.stepsChanged(ids));
  return { log, session, flush, find };
}

describe('ChainFind', () => {
  it('counts from the step the user was at and numbers the current hit', () => {
    const { log, flush, find } = setup();
    const a = log.step('thought', 'flour');
    const b = log.step('action', 'more flour');
    const c = log.step('final_answer', 'flour, flour');
    flush();
    find.show(null, b);
    find.setQuery('FLOUR');
    expect(find.total).toBe(4);
    expect(find.current).toEqual({ stepId: b, ordinal: 0 });
    expect(find.number).toBe(2);
    find.next();
    expect(find.current).toEqual({ stepId: c, ordinal: 0 });
    find.next();
    find.next();
    expect(find.current).toEqual({ stepId: a, ordinal: 0 });
    expect(find.number).toBe(1);
    find.previous();
    expect(find.number).toBe(4);
    // Changing the query looks from the current hit's step on, not from the top.
    find.setQuery('flou');
    expect(find.current).toEqual({ stepId: c, ordinal: 0 });
    expect(find.number).toBe(3);
  });

  it('follows the text while it streams: the count grows, the current hit stays on its step', () => {
    const { log, flush, find } = setup();
    const a = log.step('thought', 'one needle');
    const tail = log.start('action');
    log.delta(tail, 'needle');
    flush();
    find.show(null, a);
    find.setQuery('needle');
    expect(find.total).toBe(2);
    expect(find.current).toEqual({ stepId: a, ordinal: 0 });
    log.delta(tail, ' and a needle');
    flush();
    expect(find.total).toBe(3);
    expect(find.current).toEqual({ stepId: a, ordinal: 0 });
    expect(find.number).toBe(1);
    // A new step with a hit extends the order.
    log.complete(tail);
    log.step('observation', 'needle!');
    flush();
    find.syncOrder();
    expect(find.total).toBe(4);
  });

  it('counts again after a fresh snapshot', () => {
    const { log, flush, find, session } = setup();
    const a = log.step('thought', 'needle');
    flush();
    find.show(null);
    find.setQuery('needle');
    expect(find.total).toBe(1);
    log.delta(log.start('action'), 'needle needle');
    // The snapshot says more than the events this page saw (a resync after a gap).
    log.steps.get(a)!.content = 'needle, and a needle';
    session.loadSnapshot({ session: log.info, steps: [...log.steps.values()], chain: log.chain, seq: log.events.length });
    expect(find.total).toBe(2);
    find.syncOrder();
    expect(find.total).toBe(4);
    expect(find.current).toEqual({ stepId: a, ordinal: 0 });
  });

  it('respects match case, and closing forgets the hits but keeps the query for next time', () => {
    const { log, flush, find } = setup();
    log.step('thought', 'Paris, paris, PARIS');
    flush();
    find.show(null);
    find.setQuery('Paris');
    expect(find.total).toBe(3);
    find.setMatchCase(true);
    expect(find.total).toBe(1);
    find.close();
    expect(find.open).toBe(false);
    expect(find.total).toBe(0);
    find.show(null);
    expect(find.query).toBe('Paris');
    expect(find.total).toBe(1);
  });

  it('finds nothing in an empty query and says no hit when none matches', () => {
    const { log, flush, find } = setup();
    log.step('thought', 'abc');
    flush();
    find.show(null);
    expect(find.total).toBe(0);
    find.setQuery('zzz');
    expect(find.total).toBe(0);
    expect(find.current).toBeNull();
    find.next();
    expect(find.current).toBeNull();
  });
});
