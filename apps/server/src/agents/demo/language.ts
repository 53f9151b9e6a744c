/** The language the demo agent answers in. */
export type Lang = 'en' | 'zh';

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/u;

/** Chinese when the task contains CJK characters, else English. */
export function languageOf(text: string): Lang {
  return CJK.test(text) ? 'zh' : 'en';
}

/** Pick the sentence for `lang`. */
export function say(lang: Lang, en: string, zh: string): string {
  return lang === 'zh' ? zh : en;
}

/** "a, b and c" / "a、b和c". */
export function listWords(lang: Lang, items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  const head = items.slice(0, -1);
  const last = items[items.length - 1] ?? '';
  return lang === 'zh' ? `${head.join('、')}和${last}` : `${head.join(', ')} and ${last}`;
}
