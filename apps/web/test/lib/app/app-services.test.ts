import { describe, expect, it } from 'vitest';
import { KeyboardHub } from '$lib/app/keyboard-hub.svelte.js';
import { OwnConnections } from '$lib/app/own-connections.js';
import { Toaster } from '$lib/app/toaster.svelte.js';
import type { ShortcutAction } from '$lib/keyboard/index.js';
import type { ChainRow } from '$lib/chain/chain-rows.js';
import { VirtualChain } from '$lib/chain/virtual-rows/virtual-chain.svelte.js';
import { moveStepFocus } from '$lib/session-page/step-focus.js';
import { MemoryStorage } from '../../support/memory-storage.js';

describe('OwnConnections', () => {
  it('recognises this browser’s connection ids across reloads and tabs', () => {
    const storage = new MemoryStorage();
    new OwnConnections(storage).remember('c-1');
    const otherTab = new OwnConnections(storage);
    expect(otherTab.has('c-1')).toBe(true);
    expect(otherTab.has('c-2')).toBe(false);
    expect(otherTab.has(undefined)).toBe(false);
  });

  it('survives storage holding something that is not a list', () => {
    const storage = new MemoryStorage();
    storage.setItem('interthought.connections', '{"oops":1}');
    expect(new OwnConnections(storage).has('c-1')).toBe(false);
  });
});

describe('Toaster', () => {
  it('keeps errors until dismissed and never piles up more than four', () => {
    const toaster = new Toaster();
    const first = toaster.show({ tone: 'error', title: 'one' });
    for (const title of ['two', 'three', 'four', 'five']) toaster.show({ tone: 'error', title });
    expect(toaster.toasts.map((toast) => toast.title)).toEqual(['two', 'three', 'four', 'five']);
    toaster.dismiss(first);
    expect(toaster.toasts).toHaveLength(4);
    toaster.dismiss(toaster.toasts[0]!.id);
    expect(toaster.toasts.map((toast) => toast.title)).toEqual(['three', 'four', 'five']);
  });
});

describe('KeyboardHub', () => {
  it('toggles the shortcuts overlay on ? and closes it on Escape before anything else hears it', () => {
    const hub = new KeyboardHub();
    const heard: ShortcutAction[] = [];
    hub.register((action) => {
      heard.push(action);
      return true;
    });
    expect(hub.dispatch('help')).toBe(true);
    expect(hub.overlayOpen).toBe(true);
    expect(hub.dispatch('next')).toBe(false);
    expect(hub.dispatch('escape')).toBe(true);
    expect(hub.overlayOpen).toBe(false);
    expect(hub.dispatch('next')).toBe(true);
    expect(heard).toEqual(['next']);
  });

  it('stops sending actions to a page that unregistered', () => {
    const hub = new KeyboardHub();
    const stop = hub.register(() => true);
    stop();
    expect(hub.dispatch('next')).toBe(false);
  });
});

describe('moveStepFocus', () => {
  const rows: ChainRow[] = [
    { type: 'step', key: 'a', stepId: 'a', readOnly: false },
    { type: 'subagents', key: 'subagents:b', calls: [{ stepId: 'b', readOnly: false }] },
    { type: 'thoughts', key: 'thoughts:t1', stepIds: ['t1', 't2'] },
    { type: 'step', key: 'c', stepId: 'c', readOnly: false },
  ];
  const card = (id: string) => `<article data-step-id="${id}" tabindex="-1"><button>x</button></article>`;
  const rowHtml = (index: number, inner: string) => `<div data-row="${index}">${inner}</div>`;

  /** A list that has drawn rows 0–2 only; "scrolling" to row 3 draws it, as the virtualizer would. */
  function chainOnPage() {
    const chain = new VirtualChain(() => rows);
    const element = document.createElement('div');
    element.innerHTML = `<div>${rowHtml(0, card('a'))}${rowHtml(1, card('b') + card('b1'))}${rowHtml(2, '<button>Thought for 2 s</button>')}</div>`;
    document.body.appendChild(element);
    chain.element = element;
    const scrolled: number[] = [];
    chain.scroller = {
      scrollToIndex(index) {
        scrolled.push(index);
        if (index === 3 && !element.querySelector('[data-row="3"]')) element.firstElementChild!.insertAdjacentHTML('beforeend', rowHtml(3, card('c')));
      },
    };
    return { chain, element, scrolled };
  }

  const focusedId = () => (document.activeElement as HTMLElement | null)?.dataset.stepId;
  const closed = () => false;

  it('walks the cards in order, inside a row and across rows, skipping a closed fold, and stops at both ends', async () => {
    const { chain, element } = chainOnPage();
    await moveStepFocus(chain, closed, document.body, 'next');
    expect(focusedId()).toBe('a');
    await moveStepFocus(chain, closed, document.activeElement, 'next');
    expect(focusedId()).toBe('b');
    // A sub-agent's card inside the batch row comes next.
    await moveStepFocus(chain, closed, document.activeElement, 'next');
    expect(focusedId()).toBe('b1');
    await moveStepFocus(chain, closed, document.activeElement, 'next');
    expect(focusedId()).toBe('c');
    await moveStepFocus(chain, closed, document.activeElement, 'next');
    expect(focusedId()).toBe('c');
    await moveStepFocus(chain, closed, document.activeElement, 'previous');
    expect(focusedId()).toBe('b1');
    await moveStepFocus(chain, closed, document.activeElement, 'first');
    expect(focusedId()).toBe('a');
    await moveStepFocus(chain, closed, document.activeElement, 'previous');
    expect(focusedId()).toBe('a');
    // From a control inside a step, "next" means the step after that one.
    element.querySelector<HTMLButtonElement>('[data-step-id="b1"] button')!.focus();
    await moveStepFocus(chain, closed, document.activeElement, 'next');
    expect(focusedId()).toBe('c');
    element.remove();
  });

  it('has the list draw a row that is not in the DOM, focuses its card and keeps that row mounted', async () => {
    const { chain, element, scrolled } = chainOnPage();
    expect(element.querySelector('[data-row="3"]')).toBeNull();
    const focused = await moveStepFocus(chain, closed, document.body, 'last');
    expect(scrolled).toEqual([3]);
    expect(focused?.dataset.stepId).toBe('c');
    expect(focusedId()).toBe('c');
    expect(chain.keepMounted).toContain(3);
    element.remove();
  });

  it('finds nowhere to go on an empty chain', () => {
    const chain = new VirtualChain(() => []);
    chain.element = document.createElement('div');
    expect(moveStepFocus(chain, closed, document.body, 'next')).toBeNull();
  });
});
