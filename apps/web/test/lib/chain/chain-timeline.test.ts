import { flushSync } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import ChainTimeline from '$lib/chain/ChainTimeline.svelte';
import { createHarness, mountInChain, type Harness } from '../../support/chain-harness.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

function render(harness: Harness) {
  const mounted = mountInChain(ChainTimeline, {}, harness);
  cleanup = mounted.destroy;
  return mounted.target;
}

const steps = (root: ParentNode) =>
  Array.from(root.querySelectorAll<HTMLElement>('[data-step-id]')).map((el) => ({ id: el.dataset.stepId, kind: el.dataset.kind, status: el.dataset.status }));

const buttonNamed = (root: ParentNode, name: RegExp) =>
  Array.from(root.querySelectorAll('button')).find((b) => name.test(b.getAttribute('aria-label') ?? b.textContent ?? ''));

/** thought → action → tool_call → observation → final answer, then the tool call corrected. */
function correctedSession(harness: Harness) {
  const { log } = harness;
  const thought = log.step('thought', 'Average speed is distance over time.');
  const action = log.step('action', 'Divide 180 by 2.5.');
  const call = log.step('tool_call', '{"expression":"180 * 2.5"}', { tool: 'calculator' });
  const observation = log.step('observation', '450', { tool: 'calculator' });
  const answer = log.step('final_answer', 'The average speed is 450 km/h.');
  const fixed = log.correct(call, '{"expression":"180 / 2.5"}');
  const newObservation = log.step('observation', '72', { tool: 'calculator' });
  harness.deliver();
  return { thought, action, call, observation, answer, fixed, newObservation };
}

describe('ChainTimeline', () => {
  it('shows skeleton steps until the snapshot is loaded', async () => {
    const { SessionView } = await import('$lib/chain/session-view.svelte.js');
    const harness = createHarness();
    harness.session = new SessionView('s-loading');
    const target = render(harness);
    expect(target.querySelector('[role="status"]')?.getAttribute('aria-label')).toBe('Loading the session…');
    expect(target.querySelectorAll('[data-step-id]')).toHaveLength(0);
  });

  it('renders the live chain in order, one card per step', () => {
    const harness = createHarness();
    const { log } = harness;
    const ids = [log.step('thought', 'a'), log.step('action', 'b'), log.step('final_answer', 'c')];
    harness.deliver();
    const target = render(harness);
    expect(steps(target).map((step) => step.id)).toEqual(ids);
    expect(target.querySelector('[data-kind="final_answer"]')?.classList.contains('final')).toBe(true);
  });

  it('draws the rows as one list, each row saying where it sits in the whole chain', () => {
    const harness = createHarness();
    const { log } = harness;
    for (let i = 0; i < 70; i++) log.step(i % 2 === 0 ? 'thought' : 'action', `step ${i}`);
    harness.deliver();
    const target = render(harness);
    expect(target.querySelectorAll('[role="list"]')).toHaveLength(1);
    const items = target.querySelectorAll('[role="listitem"]');
    expect(items).toHaveLength(70);
    expect(items[9]?.getAttribute('aria-posinset')).toBe('10');
    expect(items[9]?.getAttribute('aria-setsize')).toBe('70');
    expect(target.querySelector('[role="list"]')?.getAttribute('data-steps')).toBe('70');
  });

  it('leaves the cards above the tail alone when the chain grows', () => {
    const harness = createHarness();
    const { log } = harness;
    for (let i = 0; i < 40; i++) log.step(i % 2 === 0 ? 'thought' : 'action', `step ${i}`);
    harness.deliver();
    const target = render(harness);
    const before = Array.from(target.querySelectorAll('[data-step-id]'));
    log.step('thought', 'one more');
    harness.deliver();
    flushSync();
    const after = Array.from(target.querySelectorAll('[data-step-id]'));
    expect(after).toHaveLength(41);
    // The cards already shown are the same elements: nothing above the tail was rendered again.
    expect(after.slice(0, 40).every((element, i) => element === before[i])).toBe(true);
  });

  it('appends streamed text to the card as frames are flushed', () => {
    const harness = createHarness();
    const stepId = harness.log.start('thought');
    harness.deliver();
    const target = render(harness);
    for (const word of ['The ', 'train ', 'travels']) {
      harness.log.delta(stepId, word);
      harness.deliver();
    }
    expect(target.querySelector(`[data-step-id="${stepId}"]`)?.textContent).toContain('The train travels');
  });

  it('keeps the text of a step cut short by a deletion, without the caret or the correct button', () => {
    const harness = createHarness();
    const done = harness.log.step('thought', 'Divide 180 by 2.5.');
    const stepId = harness.log.start('action');
    harness.log.delta(stepId, 'Use the ');
    harness.deliver();
    const target = render(harness);
    const card = () => target.querySelector<HTMLElement>(`[data-step-id="${stepId}"]`)!;
    expect(card().getAttribute('aria-busy')).toBe('true');
    expect(card().textContent).toContain('writing…');
    expect(target.querySelectorAll('[data-action="correct"]').length).toBeGreaterThan(0);

    harness.log.deleted();
    harness.deliver();
    expect(card().getAttribute('aria-busy')).toBe('false');
    expect(card().textContent).not.toContain('writing…');
    expect(card().querySelector('[data-step-text]')?.textContent).toContain('Use the');
    expect(target.querySelector(`[data-step-id="${done}"]`)?.textContent).toContain('Divide 180 by 2.5.');
    expect(target.querySelectorAll('[data-action="correct"]')).toHaveLength(0);
  });

  it('folds superseded steps into one muted row that expands to struck-through, inert cards', () => {
    const harness = createHarness();
    const { call, observation, answer, fixed, newObservation } = correctedSession(harness);
    const target = render(harness);

    expect(steps(target).map((step) => step.id)).not.toContain(call);
    const fold = target.querySelector('[data-superseded-count]')!;
    expect(fold.getAttribute('data-superseded-count')).toBe('3');
    const toggle = fold.querySelector('button')!;
    expect(toggle.textContent?.replace(/\s+/g, ' ').trim()).toBe('3 steps superseded by your correction · show');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');

    toggle.click();
    flushSync();
    const superseded = Array.from(fold.querySelectorAll<HTMLElement>('[data-step-id]'));
    expect(superseded.map((el) => el.dataset.stepId)).toEqual([call, observation, answer]);
    expect(superseded.every((el) => el.dataset.status === 'invalidated' && el.classList.contains('superseded'))).toBe(true);
    expect(fold.querySelectorAll('article button')).toHaveLength(0);

    // The fold sits right above the step that replaced them, which is followed by the new steps.
    const order = steps(target).map((step) => step.id);
    expect(order.indexOf(fixed)).toBeGreaterThan(order.indexOf(answer));
    expect(order.indexOf(newObservation)).toBe(order.indexOf(fixed) + 1);
  });

  it('lets the user page through branches with ‹ 2 / 2 › and come back to the live chain', () => {
    const harness = createHarness();
    const { call, observation, fixed, newObservation } = correctedSession(harness);
    const target = render(harness);
    const picker = target.querySelector(`[data-step-id="${fixed}"] [role="group"]`)!;
    expect(picker.getAttribute('aria-label')).toBe('Branch 2 of 2');
    expect(picker.textContent).toContain('2 / 2');

    buttonNamed(picker, /Previous branch/)!.click();
    flushSync();
    expect(target.textContent).toContain('You are looking at an earlier branch');
    const shown = steps(target).map((step) => step.id);
    expect(shown).toContain(call);
    expect(shown).toContain(observation);
    expect(shown).not.toContain(newObservation);
    // Earlier branches are read-only: nothing to correct there.
    expect(target.querySelector(`[data-step-id="${call}"] [data-action="correct"]`)).toBeNull();

    buttonNamed(target, /Back to the live chain/)!.click();
    flushSync();
    expect(steps(target).map((step) => step.id)).toContain(newObservation);
    expect(target.textContent).not.toContain('You are looking at an earlier branch');
  });

  it('folds a run of completed thoughts to one line and opens it on click', () => {
    const harness = createHarness();
    const { log } = harness;
    const first = log.step('thought', 'First, read the question.');
    log.step('thought', 'Then find the numbers.');
    const last = log.step('thought', 'Then pick the operation.');
    log.step('action', 'Compute.');
    harness.deliver();
    const startedAt = log.events.find((event) => event.type === 'step.started' && event.step.stepId === first)!.at;
    const completedAt = log.events.find((event) => event.type === 'step.completed' && event.stepId === last)!.at;
    const duration = harness.i18n.formatDuration(Date.parse(completedAt) - Date.parse(startedAt));
    const target = render(harness);
    const fold = buttonNamed(target, /Thought for/)!;
    expect(fold.textContent?.trim()).toBe(`Thought for ${duration} · 3 steps`);
    expect(steps(target)).toHaveLength(1);
    fold.click();
    flushSync();
    expect(steps(target)).toHaveLength(4);
  });

  it('shows the correct state in every other view of the same session (events, not local edits)', () => {
    const first = createHarness();
    const second = createHarness();
    const call = first.log.step('tool_call', '{"expression":"1+1"}', { tool: 'calculator' });
    const fixed = first.log.correct(call, '{"expression":"2+2"}');
    // Both pages fold the same event log; neither edits its state by itself.
    for (const event of first.log.events) second.session.enqueue(event);
    flushSync(() => second.frames.run());
    first.deliver();
    const a = render(first);
    const otherCleanup = cleanup;
    const b = render(second);
    expect(steps(a)).toEqual(steps(b));
    expect(steps(b).find((step) => step.id === fixed)?.status).toBe('corrected');
    otherCleanup?.();
  });
});
