import { describe, expect, it } from 'vitest';
import { createHarness } from '../../support/chain-harness.js';
import { useStepCards } from '../../support/step-cards.js';

const { render } = useStepCards();

// The harness counts `c-1` as this page's own connection: anyone else is another person or window.
describe('who did it, by name when the server knows it', () => {
  it('says “corrected by Alice” for a correction a signed-in user made, and 由 Alice 修正 in Chinese', () => {
    for (const [locale, expected] of [
      ['en', /corrected by Alice · /],
      ['zh', /由 Alice 修正 · /],
    ] as const) {
      const harness = createHarness(locale);
      const thought = harness.log.step('thought', 'Roughly 30.');
      const corrected = harness.log.correct(thought, 'Exactly 36.', undefined, 'u-alice', { byName: 'Alice' });
      harness.deliver();
      expect(render(harness, corrected).article.textContent).toMatch(expected);
    }
  });

  it('says “someone else” for an author the page does not count as its own and has no name for, and “you” for this page', () => {
    const harness = createHarness();
    const first = harness.log.step('thought', 'Roughly 30.');
    const byOther = harness.log.correct(first, 'About 36.', undefined, 'c-9');
    harness.deliver();
    expect(render(harness, byOther).article.textContent).toContain('corrected by someone else');
    const byMe = harness.log.correct(byOther, 'Exactly 36.', undefined, 'c-1', { byName: 'Ada' });
    harness.deliver();
    expect(render(harness, byMe).article.textContent).toContain('corrected by you');
  });

  it('names who approved or rejected a tool call, and who refused it on the refusal', () => {
    const harness = createHarness();
    const call = harness.log.step('tool_call', '{"expression":"240 * 15%"}', { tool: 'calculator' });
    harness.log.askApproval(call);
    harness.log.decide(call, 'rejected', 'u-alice', 'use 0.15', 'Alice');
    const refusal = harness.log.refusal('calculator', 'u-alice', 'use 0.15');
    harness.deliver();
    expect(render(harness, call).article.querySelector('[data-approval="rejected"]')?.textContent).toMatch(/Rejected by Alice · /);
    expect(render(harness, refusal).article.querySelector('[data-refusal]')?.textContent).toContain('Alice rejected this call, so calculator did not run.');

    const approved = createHarness('zh');
    const other = approved.log.step('tool_call', '{"expression":"1 + 1"}', { tool: 'calculator' });
    approved.log.askApproval(other);
    approved.log.decide(other, 'approved', 'u-bob', undefined, 'Bob');
    approved.deliver();
    expect(render(approved, other).article.querySelector('[data-approval="approved"]')?.textContent).toMatch(/由 Bob 批准 · /);
  });

  it('names another person’s turn, and keeps “You” for this user’s own and where no name is known', () => {
    const harness = createHarness();
    const theirs = harness.log.userMessage('And 20% of it?', undefined, { by: 'u-alice', byName: 'Alice' });
    const mine = harness.log.userMessage('And 25%?', undefined, { by: 'c-1', byName: 'Ada' });
    const unnamed = harness.log.userMessage('And 30%?', undefined, { by: 'c-7' });
    harness.deliver();
    expect(render(harness, theirs).article.querySelector('.kind')?.textContent).toBe('Alice');
    expect(render(harness, theirs).article.getAttribute('aria-label')).toBe('Alice, Step 1');
    expect(render(harness, mine).article.querySelector('.kind')?.textContent).toBe('You');
    expect(render(harness, unnamed).article.querySelector('.kind')?.textContent).toBe('You');
  });
});
