import { createContext } from 'svelte';
import type { I18n } from './i18n.svelte.js';

/** `useI18n()` reads the app's I18n that the root layout gave every component with `provideI18n()`. */
export const [useI18n, provideI18n] = createContext<I18n>();
