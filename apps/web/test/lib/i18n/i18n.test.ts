import { describe, expect, it } from 'vitest';
import { I18n, LOCALE_STORAGE_KEY, detectLocale, statusLabel } from '$lib/i18n/index.js';
import { MESSAGES } from '$lib/i18n/messages.js';
import { MemoryStorage } from '../../support/memory-storage.js';

describe('detectLocale', () => {
  it('follows the first supported language of the browser', () => {
    expect(detectLocale(['zh-CN', 'en-US'])).toBe('zh');
    expect(detectLocale(['en-GB', 'zh-TW'])).toBe('en');
    expect(detectLocale(['fr-FR', 'zh-Hant'])).toBe('zh');
  });

  it('falls back to English', () => {
    expect(detectLocale(['fr', 'de'])).toBe('en');
    expect(detectLocale([])).toBe('en');
  });
});

describe('I18n', () => {
  it('has every English label in Chinese too, none left empty', () => {
    expect(Object.keys(MESSAGES.zh).sort()).toEqual(Object.keys(MESSAGES.en).sort());
    for (const messages of [MESSAGES.en, MESSAGES.zh]) {
      for (const value of Object.values(messages)) {
        const text = typeof value === 'string' ? value : value.other;
        expect(text.trim()).not.toBe('');
      }
    }
  });

  it('starts in the browser language when nothing was chosen', () => {
    expect(new I18n({ languages: ['zh-CN'] }).t('home.title')).toBe('让智能体做什么？');
    expect(new I18n({ languages: ['en-US'] }).t('home.title')).toBe('What should the agent work on?');
  });

  it('remembers a switch in storage, and a remembered choice wins over the browser language', () => {
    const storage = new MemoryStorage();
    const first = new I18n({ storage, languages: ['en-US'] });
    first.setLocale('zh');
    expect(first.t('step.correct')).toBe('修正');
    expect(storage.getItem(LOCALE_STORAGE_KEY)).toBe('zh');
    const reloaded = new I18n({ storage, languages: ['en-US'] });
    expect(reloaded.locale).toBe('zh');
  });

  it('ignores a stored value that is not a supported locale', () => {
    const storage = new MemoryStorage();
    storage.setItem(LOCALE_STORAGE_KEY, 'klingon');
    expect(new I18n({ storage, languages: ['en'] }).locale).toBe('en');
  });

  it('fills placeholders and picks plural forms', () => {
    const i18n = new I18n({ languages: ['en-US'] });
    expect(i18n.t('superseded.fold', { count: 1 })).toBe('1 step superseded by your correction');
    expect(i18n.t('superseded.fold', { count: 3 })).toBe('3 steps superseded by your correction');
    i18n.setLocale('zh');
    expect(i18n.t('superseded.fold', { count: 3 })).toBe('3 个步骤已被你的修正取代');
  });

  it('formats numbers in the user locale', () => {
    const i18n = new I18n({ languages: ['en-US'] });
    expect(i18n.t('editor.tooLong', { max: 20000 })).toBe('At most 20,000 characters.');
  });

  it('says relative times in the chosen language', () => {
    const i18n = new I18n({ languages: ['en-US'] });
    const now = Date.parse('2025-01-01T12:00:00Z');
    expect(i18n.formatRelativeTime('2025-01-01T11:57:00Z', now)).toBe('3 minutes ago');
    i18n.setLocale('zh');
    expect(i18n.formatRelativeTime('2025-01-01T11:57:00Z', now)).toBe('3分钟前');
    // Formatters are kept per locale: switching back speaks English again.
    i18n.setLocale('en');
    expect(i18n.formatRelativeTime('2025-01-01T11:55:00Z', now)).toBe('5 minutes ago');
    expect(i18n.formatNumber(0.5, { style: 'percent' })).toBe('50%');
  });

  it('formats durations and the elapsed clock', () => {
    const i18n = new I18n({ languages: ['en-US'] });
    expect(i18n.formatDuration(4_200)).toBe('4 sec');
    expect(i18n.formatDuration(125_000)).toBe('2 min 5 sec');
    expect(i18n.formatClock(65_000)).toBe('1:05');
    expect(i18n.formatClock(3_725_000)).toBe('1:02:05');
  });

  it('tells a time of day, with the date only for another day', () => {
    const i18n = new I18n({ languages: ['en-US'] });
    const at = new Date(2025, 0, 1, 12, 3);
    expect(i18n.formatTimeOfDay(at, new Date(2025, 0, 1, 18, 0).getTime())).toBe('12:03 PM');
    expect(i18n.formatTimeOfDay(at, new Date(2025, 0, 2, 9, 0).getTime())).toBe('Jan 1, 2025, 12:03 PM');
    i18n.setLocale('zh');
    expect(i18n.formatTimeOfDay(at, new Date(2025, 0, 1, 18, 0).getTime())).toBe('12:03');
    expect(i18n.formatTimeOfDay('not a date')).toBe('');
  });

  it('names a status it does not know by its name', () => {
    const i18n = new I18n({ languages: ['zh-CN'] });
    expect(statusLabel(i18n, 'waiting')).toBe('等待你的决定');
    expect(statusLabel(i18n, 'hibernating')).toBe('hibernating');
    i18n.setLocale('en');
    expect(statusLabel(i18n, 'waiting')).toBe('Waiting for you');
  });

  it('knows which run-time keys exist', () => {
    const i18n = new I18n();
    expect(i18n.has('error.hint.STALE_REVISION')).toBe(true);
    expect(i18n.has('error.hint.SOMETHING_NEW')).toBe(false);
  });
});
