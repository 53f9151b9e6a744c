import { flushSync } from 'svelte';
import { describe, expect, it } from 'vitest';
import { settle } from '../../support/app.js';
import { createHarness } from '../../support/chain-harness.js';
import { useStepCards } from '../../support/step-cards.js';

const { render } = useStepCards();

/** An `ask_user` call that waits for the user's answer, as the server asks it (PROTOCOL.md §25.1). */
function waitingQuestion(locale: 'en' | 'zh' = 'en', input: { question: string; choices?: string[] } = { question: 'Which city?', choices: ['Paris', 'Rome'] }) {
  const harness = createHarness(locale);
  harness.log.step('thought', 'I should ask which city they mean.');
  const call = harness.log.step('tool_call', JSON.stringify(input), { tool: 'ask_user' });
  harness.log.askQuestion(call);
  harness.deliver();
  return { harness, call };
}

function press(element: Element, key: string, init: KeyboardEventInit = {}): KeyboardEvent {
  const event = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init });
  element.dispatchEvent(event);
  flushSync();
  return event;
}

function type(field: HTMLTextAreaElement, value: string): void {
  field.value = value;
  field.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}

describe('StepCard of an ask_user call', () => {
  it('shows the question, its choices as buttons and a text field that has the focus, not the JSON', () => {
    const { harness, call } = waitingQuestion();
    const { article } = render(harness, call);
    const card = article.querySelector('[data-question="pending"]')!;
    expect(card.querySelector('[data-question-text]')?.textContent).toBe('Which city?');
    expect(Array.from(card.querySelectorAll('[data-choice]'), (choice) => choice.textContent?.trim())).toEqual(['Paris', 'Rome']);
    expect(article.querySelector('pre')).toBeNull();
    expect(document.activeElement).toBe(card.querySelector('textarea'));
    expect(article.classList.contains('asking')).toBe(true);
  });

  it('answers with a choice button, once, with the buttons disabled while the answer is on its way', async () => {
    const { harness, call } = waitingQuestion();
    const { article } = render(harness, call);
    article.querySelector<HTMLButtonElement>('[data-choice="1"]')!.click();
    flushSync();
    expect(harness.actions.answers).toEqual([{ stepId: call, text: 'Rome' }]);
    await settle();

    harness.log.answerQuestion(call, 'Rome');
    harness.deliver();
    // Answered: a record, not a form — the answer and who gave it.
    const card = article.querySelector('[data-question="answered"]')!;
    expect(card.querySelector('textarea')).toBeNull();
    expect(card.querySelector('[data-choice]')).toBeNull();
    expect(card.querySelector('[data-answer]')?.textContent).toBe('Answer: Rome');
    expect(card.querySelector('[data-question-outcome]')?.textContent).toMatch(/Answered by you · \S/);
  });

  it('answers with the typed text on Enter; Shift+Enter is a new line', async () => {
    const { harness, call } = waitingQuestion('en', { question: 'What should the report cover?' });
    const { article } = render(harness, call);
    const field = article.querySelector<HTMLTextAreaElement>('textarea')!;
    type(field, 'Sales');
    const newLine = press(field, 'Enter', { shiftKey: true });
    expect(newLine.defaultPrevented).toBe(false);
    expect(harness.actions.answers).toEqual([]);
    type(field, 'Sales\nand costs');
    press(field, 'Enter');
    expect(harness.actions.answers).toEqual([{ stepId: call, text: 'Sales\nand costs' }]);
    await settle();
  });

  it('names another user who answered, and says so in Chinese', () => {
    const { harness, call } = waitingQuestion('zh');
    harness.log.answerQuestion(call, 'Paris', 'u-ada', 'Ada');
    harness.deliver();
    const { article } = render(harness, call);
    expect(article.querySelector('[data-answer]')?.textContent).toBe('回答：Paris');
    expect(article.querySelector('[data-question-outcome]')?.textContent).toMatch(/由 Ada 回答 · \S/);
  });

  it('reads a timed-out question as a record', () => {
    const { harness, call } = waitingQuestion();
    harness.log.timeOutQuestion(call);
    harness.deliver();
    const { article } = render(harness, call);
    expect(article.querySelector('[data-question="timed_out"] [data-question-outcome]')?.textContent).toMatch(/No answer in time · \S/);
    expect(article.querySelector('textarea')).toBeNull();
  });

  it('offers a share link viewer no form', () => {
    const { harness, call } = waitingQuestion();
    harness.actions.rights = { ...harness.actions.rights, steer: false };
    const { article } = render(harness, call);
    expect(article.querySelector('textarea')).toBeNull();
    expect(article.querySelector('[data-question="pending"]')?.textContent).toContain('The agent waits for an answer to this question.');
  });
});

describe('StepCard of a call decided without asking', () => {
  it('says a remembered approval let it run, and who gave it', () => {
    const harness = createHarness();
    const first = harness.log.step('tool_call', '{"expression":"1+1"}', { tool: 'calculator' });
    harness.log.askApproval(first);
    harness.log.decideAlways(first);
    harness.log.status('running');
    const second = harness.log.standingCall('calculator', '{"expression":"2+2"}', { state: 'approved', via: 'remembered', by: 'c-1', at: '2025-01-01T10:01:00.000Z', from: first });
    harness.deliver();
    const { article } = render(harness, second);
    expect(article.querySelector('[data-approval="approved"][data-via="remembered"]')?.textContent).toMatch(/Ran without asking: you allowed calculator for this session · \S/);
    expect(harness.session.remembered.map((remembered) => remembered.tool)).toEqual(['calculator']);
    harness.log.forget(['calculator']);
    harness.deliver();
    expect(harness.session.remembered).toEqual([]);
  });

  it('says which rule allowed or refused it, counted from 1', () => {
    const harness = createHarness();
    const allowed = harness.log.standingCall('calculator', '{"expression":"1+1"}', { state: 'approved', via: 'rule', rule: 0, by: 'policy', at: '2025-01-01T10:01:00.000Z' });
    harness.deliver();
    expect(render(harness, allowed).article.querySelector('[data-via="rule"]')?.textContent).toMatch(/the session’s rule 1 allows it/);
    const denied = harness.log.standingCall('write_file', '{"path":"/etc/x"}', { state: 'rejected', via: 'rule', rule: 2, by: 'policy', at: '2025-01-01T10:01:00.000Z', reason: 'denied' });
    const refusal = harness.log.start('observation', { tool: 'write_file' });
    harness.log.delta(refusal, 'The session’s rule 3 (write_file: deny) refused this write_file call, so it was not run.');
    harness.log.complete(refusal, { result: { refused: true, by: 'policy', rule: 2, reason: 'denied' } });
    harness.deliver();
    expect(render(harness, denied).article.querySelector('[data-via="rule"]')?.textContent).toMatch(/Refused by the session’s rule 3/);
    expect(render(harness, refusal).article.querySelector('[data-refusal]')?.textContent).toContain('The session’s rule 3 refused this call, so write_file did not run.');
  });
});

describe('StepCard of a step a breakpoint stopped at', () => {
  it('carries a marker, and offers its edit while the session is stopped there', () => {
    const harness = createHarness();
    const thought = harness.log.step('thought', 'I need 15% of 240.');
    const call = harness.log.step('tool_call', '{"expression":"240 * 15%"}', { tool: 'calculator' });
    harness.log.breakpointHit(call, {});
    harness.deliver();
    const { article } = render(harness, call);
    expect(article.querySelector('[data-breakpoint]')?.textContent?.trim()).toBe('Breakpoint');
    expect(harness.session.stoppedAt?.stepId).toBe(call);
    article.querySelector<HTMLButtonElement>('[data-action="edit-stopped"]')!.click();
    flushSync();
    expect(article.querySelector('textarea')).not.toBeNull();
    expect(render(harness, thought).article.querySelector('[data-breakpoint]')).toBeNull();
  });
});
