import { flushSync } from 'svelte';
import { describe, expect, it } from 'vitest';
import { settle } from '../../support/app.js';
import { createHarness } from '../../support/chain-harness.js';
import { buttonNamed as button } from '../../support/app.js';
import { useStepCards } from '../../support/step-cards.js';

const { render, unmount } = useStepCards();

function keydown(element: Element, key: string) {
  element.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
  flushSync();
}

function type(input: HTMLInputElement | HTMLTextAreaElement, value: string) {
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}

/** A calculator call that waits for the user, as the server asks for it. */
function waitingCall(locale: 'en' | 'zh' = 'en') {
  const harness = createHarness(locale);
  harness.log.step('thought', 'I need 15% of 240.');
  const call = harness.log.step('tool_call', '{"expression":"240 * 15%"}', { tool: 'calculator' });
  harness.log.askApproval(call);
  harness.deliver();
  return { harness, call };
}

/** A promise settled from outside: a request that is still on its way. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('StepCard of a tool call that waits for approval', () => {
  it('shows the proposed input in full, pretty-printed, with Approve, Edit and Reject', () => {
    const { harness, call } = waitingCall();
    const { article } = render(harness, call);
    expect(article.classList.contains('awaiting')).toBe(true);
    expect(article.querySelector('pre')?.textContent).toBe('{\n  "expression": "240 * 15%"\n}');
    const prompt = article.querySelector('[data-approval="pending"]')!;
    expect(prompt.textContent).toContain('Waiting for your approval: calculator runs only once you decide.');
    expect(button(prompt, /^Approve step 2: run calculator as proposed$/)).toBeDefined();
    expect(button(prompt, /^Edit the input of step 2, then run it$/)).toBeDefined();
    expect(button(prompt, /^Reject step 2: do not run calculator$/)).toBeDefined();
    // Edit is the prompt's; the header does not offer the same editor twice.
    expect(article.querySelector('.head [data-action="correct"]')).toBeNull();
  });

  it('approves once, with every button disabled while the answer is on its way', async () => {
    const { harness, call } = waitingCall();
    const { article } = render(harness, call);
    const answer = deferred();
    harness.actions.answerDecision = () => answer.promise;

    article.querySelector<HTMLButtonElement>('[data-action="approve"]')!.click();
    flushSync();
    expect(harness.actions.decisions).toEqual([{ stepId: call, kind: 'approve' }]);
    const buttons = Array.from(article.querySelectorAll<HTMLButtonElement>('[data-approval="pending"] button'));
    expect(buttons.map((b) => b.disabled)).toEqual([true, true, true, true]);
    expect(article.querySelector('[data-action="approve"]')?.textContent?.trim()).toBe('Approving…');
    // A second press while the first is on its way sends nothing.
    article.querySelector<HTMLButtonElement>('[data-action="approve"]')!.click();
    expect(harness.actions.decisions).toHaveLength(1);

    answer.resolve();
    await settle();
    harness.log.decide(call, 'approved', 'c-1');
    harness.log.status('running');
    harness.deliver();
    expect(article.querySelector('[data-approval="pending"]')).toBeNull();
    expect(article.querySelector('[data-approval="approved"]')?.textContent).toMatch(/^\s*Approved by you · \S/);
    // Decided: it is an ordinary step again, corrected from its header.
    expect(article.querySelector('.head [data-action="correct"]')).not.toBeNull();
  });

  it('gives the buttons back when the decision is refused, so the user can try again', async () => {
    const { harness, call } = waitingCall();
    const { article } = render(harness, call);
    harness.actions.answerDecision = () => Promise.reject(Object.assign(new Error('Step st2 was already approved by c_other.'), { code: 'APPROVAL_NOT_PENDING' }));
    article.querySelector<HTMLButtonElement>('[data-action="approve"]')!.click();
    await settle();
    expect(harness.actions.refusedDecisions).toHaveLength(1);
    expect(article.querySelector<HTMLButtonElement>('[data-action="approve"]')!.disabled).toBe(false);
  });

  it('rejects after an optional reason, sent trimmed; Escape closes the reason field instead', async () => {
    const { harness, call } = waitingCall();
    const { article, view } = render(harness, call);
    article.querySelector<HTMLButtonElement>('[data-action="reject"]')!.click();
    flushSync();
    const input = article.querySelector<HTMLInputElement>('input[name="reason"]')!;
    expect(document.activeElement).toBe(input);
    keydown(input, 'Escape');
    expect(article.querySelector('input[name="reason"]')).toBeNull();
    expect(harness.actions.decisions).toEqual([]);

    view.decision.openReject();
    flushSync();
    type(article.querySelector<HTMLInputElement>('input[name="reason"]')!, '  Not on production data.  ');
    article.querySelector<HTMLButtonElement>('[data-action="confirm-reject"]')!.click();
    await settle();
    expect(harness.actions.decisions).toEqual([{ stepId: call, kind: 'reject', reason: 'Not on production data.' }]);
  });

  it('rejects without a reason when none was written', async () => {
    const { harness, call } = waitingCall();
    const { article } = render(harness, call);
    article.querySelector<HTMLButtonElement>('[data-action="reject"]')!.click();
    flushSync();
    article.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await Promise.resolve();
    expect(harness.actions.decisions).toEqual([{ stepId: call, kind: 'reject' }]);
  });

  it('opens the correction editor with the input to edit, saved as "Approve with changes"', async () => {
    const { harness, call } = waitingCall();
    const { article } = render(harness, call);
    article.querySelector<HTMLButtonElement>('[data-action="edit"]')!.click();
    flushSync();
    const textarea = article.querySelector('textarea')!;
    expect(textarea.value).toBe('{\n  "expression": "240 * 15%"\n}');
    expect(article.querySelector('[data-approval="pending"]')).toBeNull();
    type(textarea, '{"expression": "240 * 0.15"}');
    button(article, /^Approve with changes$/)!.click();
    await Promise.resolve();
    expect(harness.actions.submitted).toEqual([{ stepId: call, content: '{"expression":"240 * 0.15"}', note: undefined }]);
  });

  it('offers no decision on a read-only card, nor once the session no longer waits', () => {
    const { harness, call } = waitingCall();
    const readOnly = render(harness, call, { readOnly: true });
    expect(readOnly.article.querySelector('[data-approval="pending"]')).toBeNull();
    unmount();

    const { article } = render(harness, call);
    expect(article.querySelector('[data-approval="pending"]')).not.toBeNull();
    harness.log.status('cancelled');
    harness.deliver();
    expect(article.querySelector('[data-approval="pending"]')).toBeNull();
    expect(article.textContent).toContain('Never ran: the session was cancelled while this call waited.');
  });

  it('keeps the decision on the step: rejected by someone else, with the reason, never their id', () => {
    const { harness, call } = waitingCall();
    const { article } = render(harness, call);
    harness.log.decide(call, 'rejected', 'c_other', 'Not on production data.');
    harness.deliver();
    const record = article.querySelector<HTMLElement>('[data-approval="rejected"]')!;
    expect(record.textContent).toMatch(/^\s*Rejected by someone else · \S.*\s+Why: Not on production data\.$/);
    expect(record.title).not.toContain('c_other');
  });

  it('says a timeout rejected the call when the server decided', () => {
    const { harness, call } = waitingCall('zh');
    const { article } = render(harness, call);
    harness.log.decide(call, 'rejected', 'server', 'timed out');
    harness.deliver();
    expect(article.querySelector('[data-approval="rejected"]')?.textContent).toMatch(/^\s*已拒绝：等待超时 · \S/);
  });

  it('shows an edited call once as "Edited by you before it ran", with its changes on demand', () => {
    const { harness, call } = waitingCall();
    harness.log.decide(call, 'edited', 'c-1');
    const edited = harness.log.correct(call, '{"expression":"240 * 0.15"}', undefined, 'c-1', { approval: { state: 'edited', by: 'c-1', at: '2025-01-01T10:00:30.000Z' } });
    harness.log.status('running');
    harness.deliver();
    const { article } = render(harness, edited);
    const trail = article.querySelector('[data-approval="edited"]')!;
    expect(trail.textContent).toMatch(/Edited by you before it ran · /);
    expect(article.textContent).not.toContain('corrected by');
    button(article, /^Show changes$/)!.click();
    flushSync();
    expect(article.querySelector('del')?.textContent).toBe('15%');
    expect(article.querySelector('ins')?.textContent).toBe('0.15');
  });
});

describe('StepCard of a refused call', () => {
  it('draws the refusal observation as a refusal, with who refused and why', () => {
    const { harness, call } = waitingCall();
    harness.log.decide(call, 'rejected', 'c-1', 'Use the exact figure.');
    harness.log.status('running');
    const observation = harness.log.refusal('calculator', 'c-1', 'Use the exact figure.');
    harness.deliver();
    const { article } = render(harness, observation);
    expect(article.classList.contains('refused')).toBe(true);
    expect(article.querySelector('.head')?.textContent).toContain('not run');
    const notice = article.querySelector('[data-refusal]')!;
    expect(notice.textContent).toContain('You rejected this call, so calculator did not run.');
    expect(notice.textContent).toContain('Why: Use the exact figure.');
    // Not drawn as the tool's output.
    expect(article.querySelector('pre')).toBeNull();
  });

  it('says so in Chinese when nobody decided in time', () => {
    const { harness, call } = waitingCall('zh');
    harness.log.decide(call, 'rejected', 'server', 'timed out');
    const observation = harness.log.refusal('calculator', 'server', 'timed out');
    harness.deliver();
    const { article } = render(harness, observation);
    expect(article.querySelector('[data-refusal]')?.textContent).toContain('没有人及时决定，calculator 没有运行。');
    expect(article.querySelector('.head')?.textContent).toContain('未运行');
  });
});
