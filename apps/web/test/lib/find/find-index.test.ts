import { describe, expect, it } from 'vitest';
import { SessionView } from '$lib/chain/session-view.svelte.js';
import { FindIndex } from '$lib/find/find-index.js';
import { searchOrder } from '$lib/find/search-order.js';
import { createMatcher } from '$lib/find/text-matcher.js';
import { EventLog, ManualFrames } from '../../support/session-events.js';

function setup() {
  const log = new EventLog();
  const frames = new ManualFrames();
  const session = new SessionView(log.sessionId, { schedule: frames.schedule });
  session.loadSnapshot(log.emptySnapshot());
  let seen = 0;
  /** Send the log's new events to the view and fold them, as a frame would. */
  const flush = () => {
    for (const event of log.events.slice(seen)) session.enqueue(event);
    seen = log.events.length;
    frames.run();
  };
  const index = new FindIndex((stepId) => session.state.steps.get(stepId));
  const order = () => searchOrder(session.layout, (scope) => session.subagent(scope)?.layout);
  return { log, session, flush, index, order };
}

describe('FindIndex', () => {
  it('numbers hits in the order of the chain, several in one step', () => {
    const { log, flush, index, order } = setup();
    const a = log.step('thought', 'The recipe needs flour.');
    const b = log.step('action', 'Scale flour, then flour again.');
    log.step('observation', 'no match here');
    const d = log.step('final_answer', 'FLOUR: 625 g');
    flush();
    index.setMatcher(createMatcher('flour'));
    index.setOrder(order());

    expect(index.total).toBe(4);
    expect(index.countIn(b)).toBe(2);
    const first = index.step(null, 1)!;
    expect(first).toEqual({ stepId: a, ordinal: 0 });
    const second = index.step(first, 1)!;
    expect(second).toEqual({ stepId: b, ordinal: 0 });
    expect(index.step(second, 1)).toEqual({ stepId: b, ordinal: 1 });
    expect(index.numberOf({ stepId: d, ordinal: 0 })).toBe(4);
    // Past the last hit it wraps to the first; before the first, to the last.
    expect(index.step({ stepId: d, ordinal: 0 }, 1)).toEqual(first);
    expect(index.step(first, -1)).toEqual({ stepId: d, ordinal: 0 });
    expect(index.step(null, -1)).toEqual({ stepId: d, ordinal: 0 });
  });

  it('finds CJK text in every step', () => {
    const { log, flush, index, order } = setup();
    log.step('thought', '250 克面粉够 4 人。');
    const answer = log.step('final_answer', '10 人需要 625 克，即 0.625 千克。');
    flush();
    index.setMatcher(createMatcher('千克'));
    index.setOrder(order());
    expect(index.total).toBe(1);
    expect(index.step(null, 1)).toEqual({ stepId: answer, ordinal: 0 });
    index.setMatcher(createMatcher('克'));
    expect(index.total).toBe(3);
  });

  it('searches a tool call as displayed (its name and pretty-printed input), a note and a rejection reason', () => {
    const { log, flush, index, order } = setup();
    const call = log.step('tool_call', '{"expression":"250*10/4"}', { tool: 'calculator' });
    flush();
    index.setOrder(order());
    index.setMatcher(createMatcher('calculator'));
    expect(index.countIn(call)).toBe(1);
    index.setMatcher(createMatcher('"expression": "250'));
    expect(index.countIn(call)).toBe(1);
    const fixed = log.correct(call, '{"expression":"250*10/4/1000"}', 'kilograms, please');
    flush();
    index.setOrder(order());
    index.setMatcher(createMatcher('KILOGRAMS'));
    expect(index.countIn(fixed)).toBe(1);
  });

  it('counts again only the step a delta changed, not the whole chain', () => {
    const { log, flush, index, order, session } = setup();
    for (let i = 0; i < 200; i++) log.step(i % 2 ? 'action' : 'thought', `step ${i} text`);
    const tail = log.start('thought');
    log.delta(tail, 'the needle ');
    flush();
    index.setMatcher(createMatcher('needle'));
    index.setOrder(order());
    expect(index.total).toBe(1);
    const scansAfterFirstCount = index.scans;
    const changed: string[][] = [];
    const stop = session.onStepsChanged((ids) => {
      if (ids !== 'all') {
        changed.push([...ids]);
        index.update(ids);
      }
    });
    log.delta(tail, 'and another needle');
    flush();
    stop();
    expect(changed).toEqual([[tail]]);
    expect(index.total).toBe(2);
    expect(index.scans - scansAfterFirstCount).toBe(1);
    // The chain's order taken again (a new step): unchanged steps are not scanned again.
    index.setOrder(order());
    expect(index.scans - scansAfterFirstCount).toBe(1);
  });

  it('keeps the current hit on its step while the text streams, and moves on when its step has none', () => {
    const { log, flush, index, order } = setup();
    const a = log.step('thought', 'cat cat cat');
    const b = log.step('action', 'a cat');
    log.step('observation', 'cat');
    flush();
    index.setMatcher(createMatcher('cat'));
    index.setOrder(order());
    const current = { stepId: a, ordinal: 2 };
    expect(index.numberOf(current)).toBe(3);
    expect(index.settle(current)).toEqual(current);
    // A correction replaces step b: its hits (and the step after it) are superseded now, still found and marked.
    const fixed = log.correct(b, 'a dog');
    const streaming = log.start('action');
    log.delta(streaming, 'one cat');
    flush();
    index.setOrder(order());
    expect(index.entryOf(b)?.superseded).toBe(true);
    expect(index.total).toBe(6);
    expect(index.settle(current)).toEqual(current);
    // The replacing step holds no hit: the current one moves to the next below it.
    expect(index.settle({ stepId: fixed, ordinal: 0 }, index.positionOf(fixed))).toEqual({ stepId: streaming, ordinal: 0 });
    // The streaming step grows: the count follows, its current hit stays where it was.
    log.delta(streaming, ', two cats');
    flush();
    index.update([streaming]);
    expect(index.total).toBe(7);
    expect(index.settle({ stepId: streaming, ordinal: 1 })).toEqual({ stepId: streaming, ordinal: 1 });
    expect(index.numberOf({ stepId: streaming, ordinal: 1 })).toBe(7);
    // A hit past what a step holds settles on its last.
    expect(index.settle({ stepId: a, ordinal: 9 })).toEqual({ stepId: a, ordinal: 2 });
  });

  it('orders superseded steps above the step that replaced them and a sub-agent chain after its delegate call', () => {
    const { log, flush, order } = setup();
    const a = log.step('thought', 'first');
    const call = log.delegate('researcher', 'look it up');
    const inner = log.step('thought', 'inside', { scope: call });
    const after = log.step('action', 'after');
    flush();
    expect(order().map((entry) => entry.stepId)).toEqual([a, call, inner, after]);
    expect(order()[2]).toEqual({ stepId: inner, superseded: false, scope: call });
    const fixed = log.correct(after, 'after, corrected');
    flush();
    expect(order().map((entry) => [entry.stepId, entry.superseded])).toEqual([
      [a, false],
      [call, false],
      [inner, false],
      [after, true],
      [fixed, false],
    ]);
  });

  it('includes thoughts folded into one row', () => {
    const { log, flush, order, session } = setup();
    const ids = [log.step('thought', 'one'), log.step('thought', 'two'), log.step('thought', 'three')];
    log.step('action', 'act');
    flush();
    expect(session.layout.rows[0]?.type).toBe('thoughts');
    expect(order().slice(0, 3).map((entry) => entry.stepId)).toEqual(ids);
  });
});
