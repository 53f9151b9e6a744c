import { describe, expect, it } from 'vitest';
import type { SessionView } from '$lib/chain/session-view.svelte.js';
import { FindIndex } from '$lib/find/find-index.js';
import { filterLayout } from '$lib/find/kind-filter.js';
import { SearchOrderBuilder, searchOrder } from '$lib/find/search-order.js';
import { createMatcher } from '$lib/find/text-matcher.js';
import { liveSession } from '../../support/live-session.js';
import { medianMicros } from '../../support/measure.js';

const scopeLayoutOf = (session: SessionView) => (scope: string) => session.subagent(scope)?.layout;
const full = (session: SessionView) => searchOrder(session.layout, scopeLayoutOf(session));
const update = (builder: SearchOrderBuilder, session: SessionView) => builder.update(session.layout, scopeLayoutOf(session), session.layout === session.fullLayout);

describe('SearchOrderBuilder', () => {
  it('re-walks only the tail of a chain that grows at its end, and stays the whole walk', () => {
    const { log, session, flush } = liveSession();
    const builder = new SearchOrderBuilder();
    for (let i = 0; i < 20; i++) log.step(i % 3 === 0 ? 'action' : 'observation', `step ${i}`);
    flush();
    expect(update(builder, session).kept).toBe(0);
    log.step('thought', 'more');
    flush();
    const change = update(builder, session);
    expect(change.kept).toBeGreaterThanOrEqual(19);
    expect(builder.entries).toEqual(full(session));
  });

  it('walks again from the changed row after a correction, a sub-agent growing and a filter', () => {
    const { log, session, flush } = liveSession();
    const builder = new SearchOrderBuilder();
    const first = log.step('action', 'look up');
    log.step('thought', 'a');
    log.step('thought', 'b');
    const call = log.delegate('helper', 'count');
    log.step('thought', 'inside', { scope: call });
    log.step('observation', 'after');
    flush();
    update(builder, session);
    expect(builder.entries).toEqual(full(session));

    log.step('observation', 'the helper goes on', { scope: call });
    flush();
    update(builder, session);
    expect(builder.entries).toEqual(full(session));

    log.correct(first, 'look it up again');
    log.step('thought', 'again');
    flush();
    expect(update(builder, session).kept).toBe(0);
    expect(builder.entries).toEqual(full(session));

    session.setRowFilter((layout, state) => filterLayout(layout, state, 'thought'));
    update(builder, session);
    expect(builder.entries).toEqual(full(session));
    session.setRowFilter(null);
    update(builder, session);
    expect(builder.entries).toEqual(full(session));
  });

  // A measure to read, not a target: what the order costs per new step on a long chain, walked whole (as before) and by its tail.
  it('prints what a new step costs the order on a 5,000-step chain', () => {
    const { log, session, flush } = liveSession();
    for (let i = 0; i < 5000; i++) log.step(i % 2 ? 'observation' : 'action', `step ${i} flour`);
    flush();
    const matcher = createMatcher('flour');
    const whole = new FindIndex((stepId) => session.state.steps.get(stepId));
    const tail = new FindIndex((stepId) => session.state.steps.get(stepId));
    const builder = new SearchOrderBuilder();
    whole.setMatcher(matcher);
    tail.setMatcher(matcher);
    whole.setOrder(full(session));
    const first = update(builder, session);
    tail.replaceTail(builder.entries, first.kept, first.removed);
    const rounds = 200;
    const grow = (round: number) => {
      log.step('action', `more flour ${round}`);
      flush();
    };
    const wholeWalk = medianMicros(rounds, () => whole.setOrder(full(session)), grow);
    const tailWalk = medianMicros(rounds, () => {
      const change = update(builder, session);
      tail.replaceTail(builder.entries, change.kept, change.removed);
    }, grow);
    // The whole walk's index is brought up to the last steps too, to compare the two.
    whole.setOrder(full(session));
    expect(tail.total).toBe(whole.total);
    expect(tail.total).toBe(5000 + 2 * rounds);
    console.log(`[measure] find order per new step on 5,000 steps: median whole walk ${wholeWalk} µs, tail walk ${tailWalk} µs`);
  });
});
