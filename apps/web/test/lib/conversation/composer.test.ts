import { flushSync } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import Composer from '$lib/conversation/Composer.svelte';
import { MessageDraft } from '$lib/conversation/message-draft.svelte.js';
import { createHarness, mountInChain, type Harness } from '../../support/chain-harness.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

function render(harness: Harness) {
  const draft = new MessageDraft();
  const sent: string[] = [];
  const mounted = mountInChain(Composer, { session: harness.session, draft, onSend: () => sent.push(draft.text) }, harness);
  cleanup = mounted.destroy;
  const textarea = mounted.target.querySelector<HTMLTextAreaElement>('textarea')!;
  const send = mounted.target.querySelector<HTMLButtonElement>('button[type="submit"]')!;
  const note = () => mounted.target.querySelector('#composer-note')?.textContent?.trim();
  return { draft, sent, textarea, send, note, target: mounted.target };
}

function type(textarea: HTMLTextAreaElement, value: string) {
  textarea.value = value;
  textarea.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}

function press(textarea: HTMLTextAreaElement, init: KeyboardEventInit & { keyCode?: number }) {
  const event = new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init });
  if (init.keyCode !== undefined) Object.defineProperty(event, 'keyCode', { value: init.keyCode });
  textarea.dispatchEvent(event);
  flushSync();
  return event;
}

function finished(harness: Harness) {
  harness.log.step('final_answer', '36.');
  harness.log.status('completed');
  harness.deliver();
}

describe('Composer', () => {
  it('sends on Enter, keeps Shift+Enter for a new line, and never sends the Enter that ends an input method’s composition', () => {
    const harness = createHarness();
    finished(harness);
    const { sent, textarea, send, note } = render(harness);
    expect(send.disabled).toBe(true);
    expect(note()).toBe('Enter to send · Shift+Enter for a new line');
    type(textarea, '再加 10 呢？');
    expect(send.disabled).toBe(false);

    expect(press(textarea, { key: 'Enter', isComposing: true }).defaultPrevented).toBe(false);
    expect(press(textarea, { key: 'Enter', keyCode: 229 }).defaultPrevented).toBe(false);
    expect(press(textarea, { key: 'Enter', shiftKey: true }).defaultPrevented).toBe(false);
    expect(sent).toEqual([]);

    expect(press(textarea, { key: 'Enter' }).defaultPrevented).toBe(true);
    expect(sent).toEqual(['再加 10 呢？']);
  });

  it('offers Steer now / After this turn only while the agent runs, steering by default', () => {
    const harness = createHarness();
    harness.log.step('thought', 'Multiply.');
    harness.deliver();
    const { draft, target, note } = render(harness);
    const radios = () => Array.from(target.querySelectorAll<HTMLInputElement>('input[type="radio"]'));
    expect(radios().map((radio) => [radio.parentElement?.textContent?.trim(), radio.checked])).toEqual([
      ['Steer now', true],
      ['After this turn', false],
    ]);
    expect(note()).toBe('The agent reads it at its next step.');
    radios()[1]!.click();
    flushSync();
    expect(draft.mode).toBe('queue');
    expect(note()).toBe('It waits until the agent finishes this turn.');

    harness.log.step('final_answer', '36.');
    harness.log.status('completed');
    harness.deliver();
    expect(radios()).toEqual([]);
  });

  it('holds the message while a tool call waits, saying why, and lets the text be written meanwhile', () => {
    const harness = createHarness('zh');
    const call = harness.log.step('tool_call', '{"expression":"240 * 0.15"}', { tool: 'calculator' });
    harness.log.askApproval(call);
    harness.deliver();
    const { sent, textarea, send, note } = render(harness);
    expect(note()).toContain('请先对上面的工具调用做出决定');
    expect(textarea.disabled).toBe(false);
    type(textarea, '用 25%');
    expect(send.disabled).toBe(true);
    press(textarea, { key: 'Enter' });
    expect(sent).toEqual([]);
    expect(textarea.getAttribute('aria-label')).toBe('给智能体发消息');
  });

  it('invites the first message of a fork, and takes none once the session is deleted', () => {
    const harness = createHarness();
    harness.log.status('idle');
    harness.deliver();
    const { textarea, note } = render(harness);
    expect(textarea.placeholder).toBe('Write your message: the agent continues from here');
    expect(note()).toBe('This session waits for your first message.');
    harness.log.deleted();
    harness.deliver();
    expect(textarea.disabled).toBe(true);
    expect(note()).toBe('This session was deleted: it takes no more messages.');
  });

  it('shows the server’s refusal with what to do', () => {
    const harness = createHarness();
    finished(harness);
    const { draft, target } = render(harness);
    draft.refused('Add 10 to that.', { code: 'RATE_LIMITED', message: 'Too many requests.' });
    flushSync();
    const problem = target.querySelector('[data-testid="composer-error"]')!;
    expect(problem.textContent).toContain('Too many requests.');
    expect(problem.textContent).toContain('The message was not sent. It is back in the box.');
    expect(problem.textContent).toContain('Too many requests at once.');
    expect(target.querySelector('textarea')!.value).toBe('Add 10 to that.');
  });
});
