import { describe, expect, it } from 'vitest';
import type { SessionView } from '$lib/chain/session-view.svelte.js';
import { FindIndex } from '$lib/find/find-index.js';
import { filterLayout } from '$lib/find/kind-filter.js';
import { SearchOrderBuilder, searchOrder } from '$lib/find/search-order.js';
import { createMatcher } from '$lib/find/text-matcher.js';
import { liveSession } from '../../support/live-session.js';

/** The median of some durations in ms, in µs. */
const micros = (ms: number[]) => ((ms.sort((a, b) => a - b)[ms.length >> 1] ?? 0) * 1000).toFixed(1);
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
    const wholeMs: number[] = [];
    const tailMs: number[] = [];
    for (let i = 0; i < rounds; i++) {
      log.step('action', `more flour ${i}`);
      flush();
      let started = performance.now();
      whole.setOrder(full(session));
      wholeMs.push(performance.now() - started);
      started = performance.now();
      const change = update(builder, session);
      tail.replaceTail(builder.entries, change.kept, change.removed);
      tailMs.push(performance.now() - started);
    }
    expect(tail.total).toBe(whole.total);
    expect(tail.total).toBe(5000 + rounds);
    console.log(`[measure] find order per new step on 5,000 steps: median whole walk ${micros(wholeMs)} µs, tail walk ${micros(tailMs)} µs`);
  });
});
