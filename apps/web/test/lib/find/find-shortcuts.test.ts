import { describe, expect, it } from 'vitest';
import { SHORTCUT_LIST, ShortcutReader } from '$lib/keyboard/index.js';

const key = (k: string, extra: Partial<KeyboardEvent> = {}) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, target: document.body, ...extra });

describe('find shortcuts', () => {
  it('reads Ctrl+F and Cmd+F as find, a text field included', () => {
    const reader = new ShortcutReader();
    const field = document.createElement('textarea');
    document.body.append(field);
    expect(reader.read(key('f', { ctrlKey: true }))).toBe('find');
    expect(reader.read(key('f', { metaKey: true }))).toBe('find');
    expect(reader.read(key('F', { ctrlKey: true, shiftKey: true }))).toBe('find');
    expect(reader.read(key('f', { ctrlKey: true, target: field }))).toBe('find');
    expect(reader.read(key('f', { ctrlKey: true, altKey: true }))).toBeNull();
    field.remove();
  });

  it('reads / as find and o as the outline, only when not typing', () => {
    const reader = new ShortcutReader();
    const input = document.createElement('input');
    document.body.append(input);
    expect(reader.read(key('/'))).toBe('find');
    expect(reader.read(key('o'))).toBe('outline');
    expect(reader.read(key('/', { target: input }))).toBeNull();
    expect(reader.read(key('o', { target: input }))).toBeNull();
    input.remove();
  });

  it('reads F3 and Shift+F3 as the next and previous hit', () => {
    const reader = new ShortcutReader();
    expect(reader.read(key('F3'))).toBe('findNext');
    expect(reader.read(key('F3', { shiftKey: true }))).toBe('findPrevious');
  });

  it('lists them in the shortcuts overlay', () => {
    const keys = SHORTCUT_LIST.map((shortcut) => shortcut.keys.join(' '));
    expect(keys).toEqual(expect.arrayContaining(['mod F', '/', 'F3', 'o']));
  });
});
