import { describe, expect, it } from 'vitest';
import { SHORTCUT_LIST, ShortcutReader, isSaveShortcut } from '$lib/keyboard/index.js';

const key = (k: string, extra: Partial<KeyboardEvent> = {}) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, target: document.body, ...extra });

describe('ShortcutReader', () => {
  it('maps j, k, e, a, r, m, G and ? to their actions', () => {
    const reader = new ShortcutReader();
    expect(reader.read(key('j'))).toBe('next');
    expect(reader.read(key('k'))).toBe('previous');
    expect(reader.read(key('e'))).toBe('correct');
    expect(reader.read(key('a'))).toBe('approve');
    expect(reader.read(key('r'))).toBe('reject');
    expect(reader.read(key('m'))).toBe('message');
    expect(reader.read(key('G'))).toBe('bottom');
    expect(reader.read(key('?'))).toBe('help');
    expect(reader.read(key('Escape'))).toBe('escape');
  });

  it('reads ↓/↑ as the next / previous step on a step’s card only: elsewhere the arrows scroll or move a caret', () => {
    const reader = new ShortcutReader();
    const card = document.createElement('article');
    card.dataset.stepId = 's1';
    const button = document.createElement('button');
    card.append(button);
    document.body.append(card);
    try {
      expect(reader.read(key('ArrowDown', { target: card }))).toBe('next');
      expect(reader.read(key('ArrowUp', { target: card }))).toBe('previous');
      expect(reader.read(key('ArrowDown', { target: button }))).toBeNull();
      expect(reader.read(key('ArrowUp'))).toBeNull();
    } finally {
      card.remove();
    }
  });

  it('reads g g as "top" only when the two presses are close together', () => {
    let now = 0;
    const reader = new ShortcutReader(800, () => now);
    expect(reader.read(key('g'))).toBeNull();
    now = 300;
    expect(reader.read(key('g'))).toBe('top');
    now = 400;
    expect(reader.read(key('g'))).toBeNull();
    now = 2000;
    expect(reader.read(key('g'))).toBeNull();
  });

  it('never treats typing in a text field as a shortcut', () => {
    const reader = new ShortcutReader();
    const textarea = document.createElement('textarea');
    document.body.appendChild(textarea);
    expect(reader.read(key('j', { target: textarea }))).toBeNull();
    expect(reader.read(key('e', { target: textarea }))).toBeNull();
    textarea.remove();
  });

  it('ignores keys held with a modifier (browser shortcuts stay the browser’s)', () => {
    const reader = new ShortcutReader();
    expect(reader.read(key('k', { ctrlKey: true }))).toBeNull();
    expect(reader.read(key('j', { metaKey: true }))).toBeNull();
  });
});

describe('isSaveShortcut', () => {
  it('is Ctrl+Enter or Cmd+Enter', () => {
    expect(isSaveShortcut({ key: 'Enter', ctrlKey: true, metaKey: false })).toBe(true);
    expect(isSaveShortcut({ key: 'Enter', ctrlKey: false, metaKey: true })).toBe(true);
    expect(isSaveShortcut({ key: 'Enter', ctrlKey: false, metaKey: false })).toBe(false);
  });

  it('lists every key it reads, each once, in the shortcuts overlay', () => {
    const keys = SHORTCUT_LIST.map((shortcut) => shortcut.keys.join(' '));
    expect(new Set(keys).size).toBe(keys.length);
    expect(SHORTCUT_LIST.find((shortcut) => shortcut.action === 'approve')?.keys).toEqual(['a']);
    expect(SHORTCUT_LIST.find((shortcut) => shortcut.action === 'reject')?.keys).toEqual(['r']);
    expect(SHORTCUT_LIST.find((shortcut) => shortcut.action === 'message')?.keys).toEqual(['m']);
    expect(SHORTCUT_LIST.find((shortcut) => shortcut.action === 'send')?.keys).toEqual(['Enter']);
  });
});
