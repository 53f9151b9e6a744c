import { describe, expect, it } from 'vitest';
import { KeyboardHub } from '$lib/app/keyboard-hub.svelte.js';
import { OwnConnections } from '$lib/app/own-connections.js';
import { Toaster } from '$lib/app/toaster.svelte.js';
import type { ShortcutAction } from '$lib/keyboard/index.js';
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
  it('walks the steps in order and stops at both ends', () => {
    const container = document.createElement('div');
    container.innerHTML = ['a', 'b', 'c'].map((id) => `<article data-step-id="${id}" tabindex="-1"><button>x</button></article>`).join('');
    document.body.appendChild(container);
    const ids = () => (document.activeElement as HTMLElement | null)?.dataset.stepId;
    moveStepFocus(container, document.body, 'next');
    expect(ids()).toBe('a');
    moveStepFocus(container, document.activeElement, 'next');
    moveStepFocus(container, document.activeElement, 'next');
    moveStepFocus(container, document.activeElement, 'next');
    expect(ids()).toBe('c');
    moveStepFocus(container, document.activeElement, 'first');
    expect(ids()).toBe('a');
    moveStepFocus(container, document.activeElement, 'previous');
    expect(ids()).toBe('a');
    // From a control inside a step, "next" means the step after that one.
    container.querySelector<HTMLButtonElement>('[data-step-id="b"] button')!.focus();
    moveStepFocus(container, document.activeElement, 'next');
    expect(ids()).toBe('c');
    container.remove();
  });
});
