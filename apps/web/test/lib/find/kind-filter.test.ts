import { describe, expect, it } from 'vitest';
import { SessionView } from '$lib/chain/session-view.svelte.js';
import { ChainFilter } from '$lib/find/chain-filter.svelte.js';
import { filterLayout } from '$lib/find/kind-filter.js';
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
  return { log, session, flush };
}

const shown = (session: SessionView) => session.layout.rows.map((row) => (row.type === 'step' ? row.stepId : row.type));

describe('filter by kind', () => {
  it('shows only tool calls, and clearing it restores the layout exactly', () => {
    const { log, session, flush } = setup();
    log.step('thought', 'think');
    const call = log.step('tool_call', '{"expression":"1+1"}', { tool: 'calculator' });
    log.step('observation', '2');
    const second = log.step('tool_call', '{"expression":"2+2"}', { tool: 'calculator' });
    log.step('final_answer', '4');
    flush();
    const before = session.layout;
    const filter = new ChainFilter(session);

    filter.set('tool_call');
    expect(shown(session)).toEqual([call, second]);
    expect(session.layout.path).toEqual([call, second]);
    expect(session.fullLayout).toBe(before);

    filter.set(null);
    expect(session.layout).toBe(before);
  });

  it('opens a fold of thoughts into the thoughts it shows', () => {
    const { log, session, flush } = setup();
    const thoughts = [log.step('thought', 'a'), log.step('thought', 'b'), log.step('thought', 'c')];
    log.step('action', 'act');
    flush();
    expect(session.layout.rows[0]?.type).toBe('thoughts');
    new ChainFilter(session).set('thought');
    expect(shown(session)).toEqual(thoughts);
  });

  it('shows corrected steps with what they replaced folded above them', () => {
    const { log, session, flush } = setup();
    log.step('thought', 'think');
    const call = log.step('tool_call', '{"expression":"1+1"}', { tool: 'calculator' });
    log.step('observation', '2');
    const fixed = log.correct(call, '{"expression":"2+2"}', 'four');
    log.step('observation', '4');
    flush();
    new ChainFilter(session).set('corrected');
    expect(shown(session)).toEqual(['superseded', fixed]);
  });

  it('keeps a batch of delegate calls under a tool-call filter, with its sub-agents', () => {
    const { log, session, flush } = setup();
    log.step('thought', 'split the work');
    log.delegate('researcher', 'look it up');
    log.step('final_answer', 'done');
    flush();
    new ChainFilter(session).set('tool_call');
    expect(shown(session)).toEqual(['subagents']);
  });

  it('stays applied while the chain streams on', () => {
    const { log, session, flush } = setup();
    const call = log.step('tool_call', '{"a":1}', { tool: 'calculator' });
    flush();
    new ChainFilter(session).set('tool_call');
    log.step('observation', '1');
    const next = log.step('tool_call', '{"a":2}', { tool: 'calculator' });
    flush();
    expect(shown(session)).toEqual([call, next]);
    expect(session.fullLayout.path).toHaveLength(3);
  });

  it('is pure: the layout it filters is left as it was', () => {
    const { log, session, flush } = setup();
    log.step('thought', 'a');
    log.step('action', 'b');
    flush();
    const layout = session.layout;
    const copy = structuredClone(layout);
    filterLayout(layout, session.state, 'action');
    expect(layout).toEqual(copy);
  });
});
