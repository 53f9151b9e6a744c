import { flushSync } from 'svelte';
import { describe, expect, it } from 'vitest';
import { createHarness } from '../../support/chain-harness.js';
import { useStepCards } from '../../support/step-cards.js';

const { render } = useStepCards();

const labels = (root: ParentNode) => Array.from(root.querySelectorAll('.actions button')).map((button) => button.getAttribute('aria-label'));

describe('StepCard conversations', () => {
  it('draws the user’s turn as what they said, as typed, with Edit instead of Correct', () => {
    const harness = createHarness();
    harness.log.step('final_answer', '36.');
    const said = harness.log.userMessage('Add **10** to that.\nThen halve it.');
    harness.deliver();
    const { article, view } = render(harness, said);
    expect(article.classList.contains('user-turn')).toBe(true);
    expect(article.querySelector('.kind')?.textContent).toBe('You');
    expect(article.querySelector('.said')?.textContent).toBe('Add **10** to that.\nThen halve it.');
    expect(article.querySelector('strong')).toBeNull();
    expect(labels(article)).toEqual(['Edit your message (step 2)', 'Fork a new session from step 2', 'Replay from step 2 on another agent or model', 'Copy the text of step 2', 'Collapse', 'More actions for step 2']);

    article.querySelector<HTMLButtonElement>('[data-action="correct"]')!.click();
    flushSync();
    expect(view.draft?.text).toBe('Add **10** to that.\nThen halve it.');
    expect(article.querySelector('textarea')?.getAttribute('aria-label')).toBe('Your edited message (step 2)');
    expect(Array.from(article.querySelectorAll('button')).some((button) => button.textContent?.trim() === 'Save and resend')).toBe(true);
  });

  it('forks from a step once at a time, and from an earlier branch too', async () => {
    const harness = createHarness('zh');
    const thought = harness.log.step('thought', 'Multiply.');
    harness.deliver();
    let release: () => void = () => undefined;
    harness.actions.answerFork = () => new Promise<void>((resolve) => (release = resolve));
    const { article } = render(harness, thought, { readOnly: true });
    expect(labels(article)).toEqual(['从第 1 步分叉出新会话']);
    const fork = article.querySelector<HTMLButtonElement>('[data-action="fork"]')!;
    fork.click();
    flushSync();
    expect(fork.disabled).toBe(true);
    expect(fork.getAttribute('aria-label')).toBe('正在分叉…');
    fork.click();
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    flushSync();
    expect(harness.actions.forked).toEqual([thought]);
    expect(fork.disabled).toBe(false);
  });

  it('offers no fork on a superseded step', () => {
    const harness = createHarness();
    const thought = harness.log.step('thought', 'Multiply.');
    harness.deliver();
    const { article } = render(harness, thought, { readOnly: true, superseded: true });
    expect(article.querySelector('[data-action="fork"]')).toBeNull();
  });
});
