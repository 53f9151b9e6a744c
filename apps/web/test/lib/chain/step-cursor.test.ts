import { afterEach, describe, expect, it } from 'vitest';
import { StepCursor } from '$lib/chain/step-cursor.svelte.js';

function card(stepId: string): HTMLElement {
  const element = document.createElement('article');
  element.tabIndex = -1;
  element.dataset.stepId = stepId;
  document.body.append(element);
  return element;
}

afterEach(() => document.body.replaceChildren());

describe('StepCursor', () => {
  it('has no current step until one is set, then the one set last', () => {
    const cursor = new StepCursor();
    expect(cursor.current).toBeNull();
    cursor.set('a');
    cursor.set('b');
    expect(cursor.current).toBe('b');
  });

  it('focuses a drawn card at once and makes its step current', () => {
    const cursor = new StepCursor();
    const a = card('a');
    cursor.register('a', a);
    cursor.focus('a');
    expect(document.activeElement).toBe(a);
    expect(cursor.current).toBe('a');
  });

  it('gives the focus to a card drawn after it was sent there (the step a correction makes), when nothing else holds it', () => {
    const cursor = new StepCursor();
    cursor.focus('new');
    expect(cursor.current).toBe('new');
    const drawn = card('new');
    cursor.register('new', drawn);
    expect(document.activeElement).toBe(drawn);
  });

  it('leaves the focus where the user put it meanwhile', () => {
    const cursor = new StepCursor();
    cursor.focus('new');
    const field = document.createElement('textarea');
    document.body.append(field);
    field.focus();
    cursor.register('new', card('new'));
    expect(document.activeElement).toBe(field);
  });

  it('forgets a card once it is no longer drawn', () => {
    const cursor = new StepCursor();
    const a = card('a');
    const unregister = cursor.register('a', a);
    unregister();
    a.remove();
    cursor.focus('a');
    expect(document.activeElement).not.toBe(a);
    // Drawn again later, it takes the focus it was sent.
    const again = card('a');
    cursor.register('a', again);
    expect(document.activeElement).toBe(again);
  });
});
