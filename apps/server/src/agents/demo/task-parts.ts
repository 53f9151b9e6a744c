import type { Lang } from './language.js';
import { solve } from './problem-analyser.js';

/**
 * Splitting a multi-part task into independent questions ("What is 17 * 23 + 4? Also, what is
 * 15% of 240?"), each of which the demo agent can hand to a sub-agent of its own (PROTOCOL.md §24.8).
 * A split is all or nothing: every part must be a complete question the agent can answer alone,
 * or the task stays one task (a story told over several sentences, "the sum of 3 and 4").
 */

/** More parts than this is not a list of questions but something else (and caps the work on hostile text). */
export const MAX_TASK_PARTS = 6;

/** Where a sentence ends: its punctuation stays with it. A dot ends one only before whitespace (1.5 is a number). */
const SENTENCE_END = /[?？!！;；。]+|\.(?=\s)/gu;

/** Words that open a question of their own in English: "…, and what is 15% of 240?". */
const EN_OPENERS = String.raw`(?:what(?:'s|\s+is|\s+are|\s+was|\s+will)?|how(?:\s+many|\s+much|\s+long|\s+far)?|convert|calculate|compute|evaluate|find|work\s+out|tell\s+me)\b`;
/**
 * "and" / "also" / "plus" joining two questions inside one sentence, before a question opener. A
 * match starts only where a run of blanks starts, so a long run is read once.
 */
const EN_JOIN = new RegExp(String.raw`(?<![ \t]),?[ \t]+(?:and(?:[ \t]+also)?|also|plus)(?:[ \t]*,)?[ \t]+(?=${EN_OPENERS})`, 'giu');

const ZH_CONNECTORS = '另外|还有|以及|并且|此外|同时|和';
/**
 * A Chinese connector starts a new question only after a clause ends (punctuation, or a question
 * word such as 是多少): 和 inside "3 和 4 的和" joins two numbers, not two questions.
 */
const ZH_JOIN = new RegExp(`(?<=[，,、]|多少|几|吗|呢)(?=\\s*(?:${ZH_CONNECTORS}))`, 'gu');

/** What a part starts with after splitting: the joining comma and connector ("Also, …", ", and …", "另外，…"). */
const LEADING_CONNECTOR = new RegExp(
  String.raw`^[\s,，、]*(?:(?:and(?:\s+also)?|also|plus|additionally)\b[\s,]*|(?:${ZH_CONNECTORS})[，,、\s]*)?`,
  'iu',
);

/**
 * A part that leans on another one is not a question of its own: "Then add 4", "add 4 to the
 * result", "结果再加4". Most dependent parts also lack the numbers they lean on, which fails them anyway.
 */
const DEPENDS_ON_ANOTHER = /\b(?:then|the\s+(?:result|answer|same)|that\s+(?:number|result|value)|those|them)\b|然后|结果|答案|这个数|那个数|上面|前面/iu;

/** A question in English opens with one of these; another piece is a request ("Convert 5 miles to km."). */
const EN_QUESTION = /^(?:what|how|which|when|who|is|are|does|do|can)\b/iu;
const ZH_QUESTION = /多少|几|吗|呢|什么/u;
const CLOSING = new Set(['?', '？', '!', '！', '.', '。', ';', '；']);
const TRAILING_JOINERS = new Set([',', '，', '、', ' ', '\t', '\n']);

/** Text cut at `pattern`'s matches: after each (a sentence keeps its punctuation) or before it (a part starts with its connector). */
function cut(text: string, pattern: RegExp, where: 'after' | 'before'): string[] {
  const pieces: string[] = [];
  let from = 0;
  for (const match of text.matchAll(pattern)) {
    const at = (match.index ?? 0) + (where === 'after' ? match[0].length : 0);
    pieces.push(text.slice(from, at));
    from = at;
  }
  pieces.push(text.slice(from));
  return pieces;
}

/** A piece as a question of its own: no connector before it or comma after it, a capital, its closing punctuation. */
function tidy(piece: string, lang: Lang): string {
  const body = piece.replace(LEADING_CONNECTOR, '');
  // Scanned from the end: a pattern anchored at `$` would retry from every comma of a long run.
  let end = body.length;
  while (end > 0 && TRAILING_JOINERS.has(body[end - 1] ?? '')) end--;
  let part = body.slice(0, end).trim();
  if (part.length === 0) return part;
  if (!CLOSING.has(part[part.length - 1] ?? '')) {
    const question = lang === 'zh' ? ZH_QUESTION.test(part) : EN_QUESTION.test(part);
    part += lang === 'zh' ? (question ? '？' : '。') : question ? '?' : '.';
  }
  return lang === 'en' ? part.charAt(0).toUpperCase() + part.slice(1) : part;
}

/** The pieces of a task between sentence ends and question joins, before checking that each stands alone. */
export function taskPieces(task: string, lang: Lang): string[] {
  const join = lang === 'zh' ? ZH_JOIN : EN_JOIN;
  return cut(task, SENTENCE_END, 'after')
    .flatMap((sentence) => cut(sentence, join, 'before'))
    .map((piece) => tidy(piece, lang))
    .filter((piece) => piece.length > 0);
}

/** A question the agent can answer alone: it leans on no other part and a plan computes it using every number in it. */
export function isAnswerableAlone(part: string, lang: Lang): boolean {
  return !DEPENDS_ON_ANOTHER.test(part) && solve(part, lang) !== undefined;
}

/**
 * The independent parts of a multi-part task, in order (two to `MAX_TASK_PARTS`), or undefined
 * when it is one task: a single question, parts that depend on each other, or a piece the agent
 * cannot answer alone.
 */
export function splitTask(task: string, lang: Lang): string[] | undefined {
  const pieces = taskPieces(task, lang);
  if (pieces.length < 2 || pieces.length > MAX_TASK_PARTS) return undefined;
  return pieces.every((piece) => isAnswerableAlone(piece, lang)) ? pieces : undefined;
}
