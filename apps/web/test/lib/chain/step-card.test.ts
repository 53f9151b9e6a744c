import { flushSync } from 'svelte';
import { describe, expect, it } from 'vitest';
import { createHarness } from '../../support/chain-harness.js';
import { buttonNamed as button } from '../../support/app.js';
import { useStepCards } from '../../support/step-cards.js';

const { render, unmount } = useStepCards();

function keydown(element: Element, key: string, extra: KeyboardEventInit = {}) {
  element.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...extra }));
  flushSync();
}

function type(textarea: HTMLTextAreaElement, value: string) {
  textarea.value = value;
  textarea.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}

describe('StepCard', () => {
  it('carries the step id, kind and status as data attributes, following the stream', () => {
    const harness = createHarness();
    const stepId = harness.log.start('thought');
    harness.log.delta(stepId, 'Let me think');
    harness.deliver();
    const { article } = render(harness, stepId);
    expect(article.dataset.stepId).toBe(stepId);
    expect(article.dataset.kind).toBe('thought');
    expect(article.dataset.status).toBe('streaming');
    expect(article.querySelector('.caret')).not.toBeNull();

    harness.log.delta(stepId, ' about it.');
    harness.log.complete(stepId);
    harness.deliver();
    expect(article.dataset.status).toBe('completed');
    expect(article.querySelector('.caret')).toBeNull();
    expect(article.textContent).toContain('Let me think about it.');
  });

  it('shows a tool call with its tool name and pretty-printed JSON input', () => {
    const harness = createHarness();
    const stepId = harness.log.step('tool_call', '{"expression":"180 / 2.5"}', { tool: 'calculator' });
    harness.deliver();
    const { article } = render(harness, stepId);
    expect(article.querySelector('.tool')?.textContent).toBe('calculator');
    expect(article.querySelector('pre')?.textContent).toBe('{\n  "expression": "180 / 2.5"\n}');
  });

  it('renders agent markdown without creating any element from raw HTML', () => {
    const harness = createHarness();
    const stepId = harness.log.step('thought', 'Hmm <img src=x onerror="window.__xss=1"> <script>window.__xss=2</script> **ok**');
    harness.deliver();
    const { article } = render(harness, stepId);
    expect(article.querySelector('img')).toBeNull();
    expect(article.querySelector('script')).toBeNull();
    expect(article.querySelector('strong')?.textContent).toBe('ok');
    expect(article.textContent).toContain('<img src=x onerror="window.__xss=1">');
  });

  it('offers Correct on a correctable step, but not on a superseded or read-only one', () => {
    const harness = createHarness();
    const stepId = harness.log.step('thought', 'a');
    harness.deliver();
    const live = render(harness, stepId);
    expect(button(live.article, /Correct step 1/)).toBeDefined();
    unmount();
    const readOnly = render(harness, stepId, { readOnly: true, superseded: true });
    expect(button(readOnly.article, /Correct/)).toBeUndefined();
    expect(readOnly.article.querySelectorAll('button')).toHaveLength(0);
  });

  it('hides Correct once the session is cancelled', () => {
    const harness = createHarness();
    const stepId = harness.log.step('thought', 'a');
    harness.deliver();
    const { article } = render(harness, stepId);
    harness.log.status('cancelled');
    harness.deliver();
    expect(button(article, /Correct/)).toBeUndefined();
  });

  it('opens the editor in the card with the current text, focused, caret at the end', () => {
    const harness = createHarness();
    const stepId = harness.log.step('thought', 'Speed is distance over time.');
    harness.deliver();
    const { article } = render(harness, stepId);
    button(article, /Correct step 1/)!.click();
    flushSync();
    const textarea = article.querySelector('textarea')!;
    expect(textarea.value).toBe('Speed is distance over time.');
    expect(document.activeElement).toBe(textarea);
    expect(textarea.selectionStart).toBe(textarea.value.length);
    expect(textarea.selectionEnd).toBe(textarea.value.length);
    // The note is collapsed until asked for.
    expect(article.querySelector('input')).toBeNull();
  });

  it('saves with Ctrl+Enter and sends the text and the note', async () => {
    const harness = createHarness();
    const stepId = harness.log.step('thought', 'Multiply.');
    harness.deliver();
    const { article, view } = render(harness, stepId);
    view.openEditor();
    flushSync();
    type(article.querySelector('textarea')!, 'Divide instead.');
    button(article, /^Add a note — why\?$/)!.click();
    flushSync();
    const note = article.querySelector('input')!;
    note.value = 'speed is a ratio';
    note.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    keydown(article.querySelector('textarea')!, 'Enter', { ctrlKey: true });
    await Promise.resolve();
    expect(harness.actions.submitted).toEqual([{ stepId, content: 'Divide instead.', note: 'speed is a ratio' }]);
  });

  it('cancels with Escape and keeps the step unchanged', () => {
    const harness = createHarness();
    const stepId = harness.log.step('thought', 'Multiply.');
    harness.deliver();
    const { article, view } = render(harness, stepId);
    view.openEditor();
    flushSync();
    type(article.querySelector('textarea')!, 'something else');
    keydown(article.querySelector('textarea')!, 'Escape');
    expect(article.querySelector('textarea')).toBeNull();
    expect(view.draft).toBeNull();
    expect(harness.actions.submitted).toEqual([]);
    expect(article.textContent).toContain('Multiply.');
  });

  it('checks tool input as JSON, shows the parse error inline and sends nothing', () => {
    const harness = createHarness();
    const stepId = harness.log.step('tool_call', '{"expression":"180 / 2.5"}', { tool: 'calculator' });
    harness.deliver();
    const { article, view } = render(harness, stepId);
    view.openEditor();
    flushSync();
    const textarea = article.querySelector('textarea')!;
    expect(textarea.value).toBe('{\n  "expression": "180 / 2.5"\n}');
    type(textarea, '{"expression": "180 / 3"');
    expect(article.querySelector('[data-testid="editor-problem"]')?.textContent).toMatch(/not valid JSON/);
    expect(textarea.getAttribute('aria-invalid')).toBe('true');
    button(article, /^Save$/)!.click();
    flushSync();
    expect(harness.actions.submitted).toEqual([]);

    type(textarea, '{\n  "expression": "180 / 3"\n}');
    expect(article.querySelector('[data-testid="editor-problem"]')).toBeNull();
    button(article, /^Save$/)!.click();
    flushSync();
    // Sent compact, as the agent wrote it.
    expect(harness.actions.submitted[0]?.content).toBe('{"expression":"180 / 3"}');
  });

  it('refuses to save an empty correction', () => {
    const harness = createHarness();
    const stepId = harness.log.step('thought', 'x');
    harness.deliver();
    const { article, view } = render(harness, stepId);
    view.openEditor();
    flushSync();
    type(article.querySelector('textarea')!, '   ');
    button(article, /^Save$/)!.click();
    flushSync();
    expect(article.querySelector('[data-testid="editor-problem"]')?.textContent).toBe('The text can’t be empty.');
    expect(harness.actions.submitted).toEqual([]);
  });

  it('shows "correcting…" while the request is pending, then the server refusal in the editor with the text kept', async () => {
    const harness = createHarness();
    const stepId = harness.log.step('thought', 'Multiply.');
    harness.deliver();
    const { article, view } = render(harness, stepId);
    let refuse: (error: Error) => void = () => undefined;
    harness.actions.answer = () => new Promise((_, reject) => (refuse = reject));
    view.openEditor();
    flushSync();
    type(article.querySelector('textarea')!, 'Divide.');
    button(article, /^Save$/)!.click();
    flushSync();
    expect(article.textContent).toContain('correcting…');
    expect(article.querySelector('textarea')!.disabled).toBe(true);

    refuse(Object.assign(new Error('The chain moved on: revision 2 is current.'), { code: 'STALE_REVISION' }));
    await new Promise((resolve) => setTimeout(resolve, 0));
    flushSync();
    expect(article.textContent).not.toContain('correcting…');
    const error = article.querySelector('[data-testid="editor-error"]')!;
    expect(error.textContent).toContain('The chain moved on: revision 2 is current.');
    expect(error.textContent).toContain('Look at the latest steps');
    expect(article.querySelector('textarea')!.value).toBe('Divide.');
  });

  it('closes the editor once the correction is accepted', async () => {
    const harness = createHarness();
    const stepId = harness.log.step('thought', 'Multiply.');
    harness.deliver();
    const { article, view } = render(harness, stepId);
    view.openEditor();
    flushSync();
    button(article, /^Save$/)!.click();
    await new Promise((resolve) => setTimeout(resolve, 0));
    flushSync();
    expect(article.querySelector('textarea')).toBeNull();
  });

  it('shows who corrected a step and a word-level diff on demand', () => {
    const harness = createHarness();
    harness.log.step('thought', 'First.');
    const action = harness.log.step('action', 'Multiply 240 by 0.2');
    const fixed = harness.log.correct(action, 'Multiply 240 by 0.15', 'fifteen, not twenty');
    harness.deliver();
    const { article } = render(harness, fixed);
    expect(article.dataset.status).toBe('corrected');
    expect(article.textContent).toContain('corrected by you');
    expect(article.textContent).toContain('Why: fifteen, not twenty');
    expect(article.querySelector('del')).toBeNull();
    button(article, /Show changes/)!.click();
    flushSync();
    expect(article.querySelector('del')?.textContent).toBe('0.2');
    expect(article.querySelector('ins')?.textContent).toBe('0.15');
  });

  it('marks a short edit character by character, switchable to words, with changes named for screen readers', () => {
    const harness = createHarness();
    const action = harness.log.step('action', 'We recieve the parcel');
    const fixed = harness.log.correct(action, 'We receive the parcel');
    harness.deliver();
    const { article } = render(harness, fixed);
    button(article, /Show changes/)!.click();
    flushSync();
    const diff = article.querySelector<HTMLElement>('[data-diff-granularity]')!;
    expect(diff.dataset.diffGranularity).toBe('char');
    expect([...article.querySelectorAll('del, ins')].map((el) => `${el.tagName}:${el.textContent}`)).toEqual(['DEL:ie', 'INS:ei']);
    expect(button(article, /^Characters$/)!.getAttribute('aria-pressed')).toBe('true');
    expect([...article.querySelectorAll('.visually-hidden')].map((el) => el.textContent)).toEqual(['deleted:', 'inserted:']);

    button(article, /^Words$/)!.click();
    flushSync();
    expect(diff.dataset.diffGranularity).toBe('word');
    expect([...article.querySelectorAll('del, ins')].map((el) => `${el.tagName}:${el.textContent}`)).toEqual(['DEL:recieve', 'INS:receive']);
    expect(button(article, /^Words$/)!.getAttribute('aria-pressed')).toBe('true');
  });

  it('keeps the diff open at the level the user picked when its card is drawn again', () => {
    const harness = createHarness();
    const action = harness.log.step('action', 'We recieve the parcel');
    const fixed = harness.log.correct(action, 'We receive the parcel');
    harness.deliver();
    const first = render(harness, fixed);
    button(first.article, /Show changes/)!.click();
    flushSync();
    button(first.article, /^Words$/)!.click();
    flushSync();
    unmount();

    const again = render(harness, fixed);
    expect(again.article.querySelector<HTMLElement>('[data-diff-granularity]')?.dataset.diffGranularity).toBe('word');
    expect(button(again.article, /^Words$/)!.getAttribute('aria-pressed')).toBe('true');
  });

  it('names a correction by nobody it knows as someone else, never by id', () => {
    const harness = createHarness();
    const action = harness.log.step('action', 'a');
    const fixed = harness.log.correct(action, 'b', undefined, 'someone-else');
    harness.deliver();
    const { article } = render(harness, fixed);
    expect(article.textContent).toContain('corrected by someone else');
    expect(article.textContent).not.toContain('someone-else');
  });

  it('collapses a long completed step behind "Show more"', () => {
    const harness = createHarness();
    const long = Array.from({ length: 14 }, (_, i) => `Line ${i + 1} of the reasoning.`).join('\n');
    const stepId = harness.log.step('thought', long);
    harness.deliver();
    const { article } = render(harness, stepId);
    expect(article.querySelector('.clamped')).not.toBeNull();
    const more = button(article, /Show more/)!;
    expect(more.getAttribute('aria-expanded')).toBe('false');
    more.click();
    flushSync();
    expect(article.querySelector('.clamped')).toBeNull();
    expect(button(article, /Show less/)).toBeDefined();
  });

  it('comes back folded or opened as the user left it when its card is drawn again (a long chain unmounts far cards)', () => {
    const harness = createHarness();
    const long = Array.from({ length: 14 }, (_, i) => `Line ${i + 1} of the reasoning.`).join('\n');
    const folded = harness.log.step('thought', long);
    const opened = harness.log.step('thought', long);
    harness.deliver();
    const first = render(harness, folded);
    button(first.article, /^Collapse$/)!.click();
    flushSync();
    expect(first.article.querySelector('[data-step-text]')).toBeNull();
    unmount();
    const second = render(harness, opened);
    button(second.article, /Show more/)!.click();
    flushSync();
    unmount();

    const again = render(harness, folded);
    expect(button(again.article, /^Expand$/)?.getAttribute('aria-expanded')).toBe('false');
    expect(again.article.querySelector('[data-step-text]')).toBeNull();
    unmount();
    const reopened = render(harness, opened);
    expect(reopened.article.querySelector('.clamped')).toBeNull();
    expect(button(reopened.article, /Show less/)).toBeDefined();
  });

  it('uses Chinese labels when the UI is in Chinese', () => {
    const harness = createHarness('zh');
    const stepId = harness.log.step('observation', '72', { tool: 'calculator' });
    harness.deliver();
    const { article } = render(harness, stepId);
    expect(article.textContent).toContain('观察');
    expect(article.textContent).toContain('修正');
    expect(article.getAttribute('aria-label')).toBe('观察, 第 1 步');
  });
});
