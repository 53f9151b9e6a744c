/**
 * The firehose agent's parameters, carried in the session's task text because session options
 * are strict in the protocol: `firehose rate=20000 duration=5000 size=32 step=1000 delay=200`
 * (and, for the browser benchmark, `lead=1500 kinds=thought,action`).
 * Shared with the raw-ws baseline of the benchmark so both stream exactly the same plan.
 * No imports: the bench harness loads this file outside the server package.
 */

/** What one firehose session streams. */
export interface FirehoseParams {
  /** Deltas per second; `Infinity` (`rate=max`) streams as fast as the session's pacing allows. */
  rate: number;
  /** Deltas in the whole session (over every step). */
  count: number;
  /** Characters of each delta's text (ASCII, so also its bytes); never below the stamp header. */
  size: number;
  /** Deltas per `thought` step: a long stream is cut into steps so no step's content grows unbounded. */
  perStep: number;
  /** Milliseconds to wait before the first paced delta of a fresh session, so subscribers can attach first. */
  delayMs: number;
  /**
   * Steps of `perStep` deltas written at once, unpaced, before the start delay and the paced
   * `count` deltas: a long chain to open a page on, so a stream can be measured on it.
   */
  leadSteps: number;
  /** The kinds the steps take in turn; more than one keeps consecutive thoughts from folding in the UI. */
  kinds: FirehoseStepKind[];
}

/** The step kinds a firehose step may take: the ones that need no tool name. */
export const FIREHOSE_STEP_KINDS = ['thought', 'action', 'observation'] as const;
export type FirehoseStepKind = (typeof FIREHOSE_STEP_KINDS)[number];

/** A task text the firehose cannot run; the message names the parameter and the accepted range. */
export class FirehoseParamsError extends Error {
  override readonly name = 'FirehoseParamsError';
}

export const FIREHOSE_DEFAULTS = { rate: 1_000, durationMs: 1_000, size: 32, perStep: 1_000, delayMs: 0, leadSteps: 0, kinds: ['thought'] } as const;

/** Accepted ranges; wide enough for any benchmark, narrow enough that a typo cannot exhaust memory. */
export const FIREHOSE_LIMITS = {
  rate: { min: 1, max: 10_000_000 },
  duration: { min: 1, max: 3_600_000 },
  count: { min: 1, max: 50_000_000 },
  size: { min: 8, max: 65_536 },
  step: { min: 1, max: 10_000_000 },
  delay: { min: 0, max: 60_000 },
  lead: { min: 0, max: 100_000 },
} as const;

type NumericKey = keyof typeof FIREHOSE_LIMITS;
type Key = NumericKey | 'kinds';
const KEYS: Key[] = [...(Object.keys(FIREHOSE_LIMITS) as NumericKey[]), 'kinds'];

function isKey(name: string): name is Key {
  return (KEYS as string[]).includes(name);
}

function readInteger(key: NumericKey, text: string): number {
  const { min, max } = FIREHOSE_LIMITS[key];
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const extra = key === 'rate' ? ' or "max"' : '';
    throw new FirehoseParamsError(`firehose: ${key} must be a whole number from ${min} to ${max}${extra}, got "${text}".`);
  }
  return value;
}

function readPairs(task: string): Map<Key, string> {
  const words = task.trim().split(/\s+/).filter(Boolean);
  if (words[0] === 'firehose') words.shift();
  const pairs = new Map<Key, string>();
  for (const word of words) {
    const match = /^([a-z]+)=(\S+)$/.exec(word);
    const name = match?.[1];
    const value = match?.[2];
    if (name === undefined || value === undefined) {
      throw new FirehoseParamsError(`firehose: expected key=value words (e.g. "rate=20000 duration=5000 size=32"), got "${word}".`);
    }
    if (!isKey(name)) throw new FirehoseParamsError(`firehose: unknown parameter "${name}"; known: ${KEYS.join(', ')}.`);
    if (pairs.has(name)) throw new FirehoseParamsError(`firehose: parameter "${name}" is given twice.`);
    pairs.set(name, value);
  }
  return pairs;
}

function isStepKind(word: string): word is FirehoseStepKind {
  return (FIREHOSE_STEP_KINDS as readonly string[]).includes(word);
}

function readKinds(text: string): FirehoseStepKind[] {
  const words = text.split(',');
  const unknown = words.filter((word) => !isStepKind(word));
  if (unknown.length > 0) {
    throw new FirehoseParamsError(`firehose: kinds must be a comma-separated list of ${FIREHOSE_STEP_KINDS.join(', ')}, got "${text}".`);
  }
  return words as FirehoseStepKind[];
}

/**
 * Parse a firehose task. `count` wins over `duration`; without either the stream lasts
 * `FIREHOSE_DEFAULTS.durationMs`. `rate=max` needs a `count` (a duration says nothing then).
 */
export function parseFirehoseTask(task: string): FirehoseParams {
  const pairs = readPairs(task);
  const rateText = pairs.get('rate');
  const rate = rateText === undefined ? FIREHOSE_DEFAULTS.rate : rateText === 'max' ? Infinity : readInteger('rate', rateText);
  const countText = pairs.get('count');
  const durationText = pairs.get('duration');
  let count: number;
  if (countText !== undefined) {
    count = readInteger('count', countText);
  } else if (rate === Infinity) {
    throw new FirehoseParamsError('firehose: rate=max needs count=N (a duration cannot size an unpaced stream).');
  } else {
    const durationMs = durationText === undefined ? FIREHOSE_DEFAULTS.durationMs : readInteger('duration', durationText);
    count = Math.max(1, Math.round((rate * durationMs) / 1_000));
    if (count > FIREHOSE_LIMITS.count.max) {
      throw new FirehoseParamsError(`firehose: rate × duration makes ${count} deltas, over the ${FIREHOSE_LIMITS.count.max} limit.`);
    }
  }
  const read = (key: NumericKey, fallback: number): number => {
    const text = pairs.get(key);
    return text === undefined ? fallback : readInteger(key, text);
  };
  return {
    rate,
    count,
    size: read('size', FIREHOSE_DEFAULTS.size),
    perStep: read('step', FIREHOSE_DEFAULTS.perStep),
    delayMs: read('delay', FIREHOSE_DEFAULTS.delayMs),
    leadSteps: read('lead', FIREHOSE_DEFAULTS.leadSteps),
    kinds: pairs.has('kinds') ? readKinds(pairs.get('kinds') ?? '') : [...FIREHOSE_DEFAULTS.kinds],
  };
}

/** The task text for `params`: what the benchmark sends in `session.create`. */
export function formatFirehoseTask(params: Partial<FirehoseParams> & { durationMs?: number }): string {
  const words = ['firehose'];
  if (params.rate !== undefined) words.push(`rate=${params.rate === Infinity ? 'max' : params.rate}`);
  if (params.count !== undefined) words.push(`count=${params.count}`);
  else if (params.durationMs !== undefined) words.push(`duration=${params.durationMs}`);
  if (params.size !== undefined) words.push(`size=${params.size}`);
  if (params.perStep !== undefined) words.push(`step=${params.perStep}`);
  if (params.delayMs !== undefined) words.push(`delay=${params.delayMs}`);
  if (params.leadSteps !== undefined) words.push(`lead=${params.leadSteps}`);
  if (params.kinds !== undefined) words.push(`kinds=${params.kinds.join(',')}`);
  return words.join(' ');
}
