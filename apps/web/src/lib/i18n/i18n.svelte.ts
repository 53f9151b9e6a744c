import { MESSAGES, type Message, type MessageKey } from './messages.js';

export type Locale = 'en' | 'zh';
export const LOCALES: readonly Locale[] = ['en', 'zh'];
export const LOCALE_STORAGE_KEY = 'interthought.locale';

export type MessageParams = Record<string, string | number>;
type LocaleStore = Pick<Storage, 'getItem' | 'setItem'>;

/** The first supported language in the user's preference list (navigator.languages), English otherwise. */
export function detectLocale(languages: readonly string[]): Locale {
  for (const language of languages) {
    const base = language.toLowerCase().split('-')[0];
    if (base === 'zh') return 'zh';
    if (base === 'en') return 'en';
  }
  return 'en';
}

function isLocale(value: unknown): value is Locale {
  return value === 'en' || value === 'zh';
}

/** The formats of times the UI shows. */
const RELATIVE: Intl.RelativeTimeFormatOptions = { numeric: 'auto' };
const DATE_AND_TIME: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };
const TIME_OF_DAY: Intl.DateTimeFormatOptions = { timeStyle: 'short' };

/**
 * The UI language and locale-aware formatting. `locale` is reactive: every label read through
 * `t()` re-renders when the user switches language. The choice is remembered in localStorage.
 */
export class I18n {
  #locale = $state<Locale>('en');
  readonly #store: LocaleStore | null;
  readonly #languages: readonly string[];
  /**
   * One Intl formatter per kind, locale and options: building one costs a hundred times more than
   * using one (~50–150 µs against ~1 µs in Node 20), and a long chain formats numbers and times for
   * every step card it creates, the session rail a time for every session on every tick of its clock.
   */
  readonly #formatters = new Map<string, unknown>();

  constructor(options: { storage?: LocaleStore | null; languages?: readonly string[] } = {}) {
    this.#store = options.storage ?? null;
    this.#languages = options.languages ?? [];
    const saved = readSafely(this.#store);
    this.#locale = isLocale(saved) ? saved : detectLocale(this.#languages);
  }

  get locale(): Locale {
    return this.#locale;
  }

  /** The BCP 47 tag used for Intl formatting: the user's own regional variant when it matches. */
  get intlLocale(): string {
    const own = this.#languages.find((language) => language.toLowerCase().split('-')[0] === this.#locale);
    return own ?? (this.#locale === 'zh' ? 'zh-CN' : 'en-US');
  }

  /** Switch the UI language and remember the choice. */
  setLocale(locale: Locale): void {
    this.#locale = locale;
    try {
      this.#store?.setItem(LOCALE_STORAGE_KEY, locale);
    } catch {
      // Private browsing can refuse storage; the switch still applies to this page.
    }
  }

  /** Whether `key` names a label (for keys built at run time, like error hints by code). */
  has(key: string): key is MessageKey {
    return Object.hasOwn(MESSAGES.en, key);
  }

  /** The label `key` in the current language, with `{name}` placeholders filled (numbers localised). */
  t(key: MessageKey, params: MessageParams = {}): string {
    const message: Message = MESSAGES[this.#locale][key];
    const template = typeof message === 'string' ? message : this.#pick(message, params.count);
    return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
      const value = params[name];
      if (value === undefined) return whole;
      return typeof value === 'number' ? this.formatNumber(value) : value;
    });
  }

  #pick(message: Exclude<Message, string>, count: string | number | undefined): string {
    if (typeof count !== 'number') return message.other;
    const rules = this.#formatter('plural', undefined, (locale) => new Intl.PluralRules(locale));
    return rules.select(count) === 'one' && message.one !== undefined ? message.one : message.other;
  }

  formatNumber(value: number, options?: Intl.NumberFormatOptions): string {
    return this.#formatter('number', options, (locale) => new Intl.NumberFormat(locale, options)).format(value);
  }

  #formatter<T>(kind: string, options: object | undefined, make: (locale: string) => T): T {
    const locale = this.intlLocale;
    const key = `${kind}|${locale}|${options === undefined ? '' : JSON.stringify(options)}`;
    let format = this.#formatters.get(key) as T | undefined;
    if (format === undefined) {
      format = make(locale);
      this.#formatters.set(key, format);
    }
    return format;
  }

  /** "3 minutes ago" / "3分钟前", from an ISO timestamp. */
  formatRelativeTime(at: string | Date, now: number = Date.now()): string {
    const time = typeof at === 'string' ? Date.parse(at) : at.getTime();
    if (Number.isNaN(time)) return '';
    const seconds = Math.round((time - now) / 1000);
    const format = this.#formatter('relative', RELATIVE, (locale) => new Intl.RelativeTimeFormat(locale, RELATIVE));
    const abs = Math.abs(seconds);
    if (abs < 45) return format.format(0, 'second');
    if (abs < 45 * 60) return format.format(Math.round(seconds / 60), 'minute');
    if (abs < 22 * 3600) return format.format(Math.round(seconds / 3600), 'hour');
    if (abs < 26 * 86400) return format.format(Math.round(seconds / 86400), 'day');
    return this.formatDateTime(new Date(time));
  }

  /** A timestamp in the user's locale: date and time, short. */
  formatDateTime(at: string | Date): string {
    const date = typeof at === 'string' ? new Date(at) : at;
    if (Number.isNaN(date.getTime())) return '';
    return this.#formatter('date', DATE_AND_TIME, (locale) => new Intl.DateTimeFormat(locale, DATE_AND_TIME)).format(date);
  }

  /**
   * When something happened, as a clock reads it: "12:03" today, with the date on another day
   * ("Jan 1, 2025, 12:03 PM"). For records that a time of day identifies, like a decision.
   */
  formatTimeOfDay(at: string | Date, now: number = Date.now()): string {
    const date = typeof at === 'string' ? new Date(at) : at;
    if (Number.isNaN(date.getTime())) return '';
    if (date.toDateString() !== new Date(now).toDateString()) return this.formatDateTime(date);
    return this.#formatter('date', TIME_OF_DAY, (locale) => new Intl.DateTimeFormat(locale, TIME_OF_DAY)).format(date);
  }

  /** A duration like "4 s", "2 min 5 s" / "4秒", "2分钟5秒". */
  formatDuration(ms: number): string {
    const totalSeconds = Math.max(0, Math.round(ms / 1000));
    const hours = Math.floor(totalSeconds / 3600);
    const minutes = Math.floor((totalSeconds % 3600) / 60);
    const seconds = totalSeconds % 60;
    const unit = (value: number, name: 'hour' | 'minute' | 'second') =>
      this.formatNumber(value, { style: 'unit', unit: name, unitDisplay: 'short' });
    const parts: string[] = [];
    if (hours) parts.push(unit(hours, 'hour'));
    if (minutes) parts.push(unit(minutes, 'minute'));
    if (seconds || parts.length === 0) parts.push(unit(seconds, 'second'));
    return parts.join(this.#locale === 'zh' ? '' : ' ');
  }

  /** A running clock for the session header: "0:42", "1:05:09". */
  formatClock(ms: number): string {
    const totalSeconds = Math.max(0, Math.floor(ms / 1000));
    const hours = Math.floor(totalSeconds / 3600);
    const minutes = Math.floor((totalSeconds % 3600) / 60);
    const seconds = totalSeconds % 60;
    const two = (value: number) => String(value).padStart(2, '0');
    return hours ? `${hours}:${two(minutes)}:${two(seconds)}` : `${minutes}:${two(seconds)}`;
  }
}

function readSafely(store: LocaleStore | null): string | null {
  try {
    return store?.getItem(LOCALE_STORAGE_KEY) ?? null;
  } catch {
    return null;
  }
}
