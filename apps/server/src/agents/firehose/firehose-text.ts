/**
 * The text of a firehose delta: `@T<µs>#<index> ` then padding to the requested size. The stamp
 * is CLOCK_MONOTONIC in microseconds (`process.hrtime`), which on Linux is one clock for every
 * process of the machine, so the benchmark's load generator (another process) can subtract it
 * from its own reading to get emit → receive latency. No imports: the bench harness shares it.
 */

const STAMP_MARK = '@T';
const INDEX_MARK = '#';
const CODE_ZERO = 48;
const CODE_NINE = 57;

/** Microseconds on the machine-wide monotonic clock. */
export function nowMicros(): number {
  const [seconds, nanos] = process.hrtime();
  return seconds * 1_000_000 + Math.floor(nanos / 1_000);
}

/** Builds delta texts of one size without re-creating the padding for every delta. */
export class DeltaTextFormat {
  readonly #padding: string;

  constructor(readonly size: number) {
    this.#padding = 'x'.repeat(size);
  }

  /** The text of delta `index` stamped `micros`: exactly `size` characters unless the header alone is longer. */
  format(index: number, micros: number): string {
    const header = `${STAMP_MARK}${micros}${INDEX_MARK}${index} `;
    return header.length >= this.size ? header : header + this.#padding.slice(header.length);
  }
}

/** A stamp read back from a delta. */
export interface DeltaStamp {
  micros: number;
  index: number;
}

function readDigits(text: string, from: number): { value: number; end: number } | undefined {
  let value = 0;
  let end = from;
  for (; end < text.length; end++) {
    const code = text.charCodeAt(end);
    if (code < CODE_ZERO || code > CODE_NINE) break;
    value = value * 10 + (code - CODE_ZERO);
  }
  return end === from ? undefined : { value, end };
}

/**
 * Read the first stamp in `text` (a delta's text or a whole serialised `step.delta` frame, so the
 * load generator need not parse JSON per frame). Undefined when there is none.
 */
export function readDeltaStamp(text: string): DeltaStamp | undefined {
  const at = text.indexOf(STAMP_MARK);
  if (at < 0) return undefined;
  const micros = readDigits(text, at + STAMP_MARK.length);
  if (!micros || text[micros.end] !== INDEX_MARK) return undefined;
  const index = readDigits(text, micros.end + 1);
  return index ? { micros: micros.value, index: index.value } : undefined;
}
