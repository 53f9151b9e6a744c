export { I18n, detectLocale, LOCALES, LOCALE_STORAGE_KEY, type Locale, type MessageParams } from './i18n.svelte.js';
export { provideI18n, useI18n } from './context.js';
export { MESSAGES, type MessageKey } from './messages.js';
export { statusLabel } from './status-label.js';
