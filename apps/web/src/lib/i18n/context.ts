import { getContext, setContext } from 'svelte';
import type { I18n } from './i18n.svelte.js';

/** The context key of the app's I18n (exported so tests can mount a component with it). */
export const I18N_KEY = Symbol('interthought.i18n');

export function provideI18n(i18n: I18n): I18n {
  return setContext(I18N_KEY, i18n);
}

export function useI18n(): I18n {
  const i18n = getContext<I18n | undefined>(I18N_KEY);
  if (!i18n) throw new Error('useI18n() needs an I18n provided by a parent (provideI18n).');
  return i18n;
}
