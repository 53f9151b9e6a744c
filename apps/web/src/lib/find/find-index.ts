import type { Step } from '@interthought/protocol';
import { sameTextVersion, searchTextOf, textVersionOf, type TextVersion } from './search-text.js';
import type { SearchEntry } from './search-order.js';
import type { TextMatcher } from './text-matcher.js';

/** One hit: the `ordinal`-th occurrence (0-based) of the query in a step's text. */
export interface HitRef {
  stepId: string;
  ordinal: number;
}

interface CachedStep {
  version: TextVersion;
  text: string;
  /** The matcher `count` was computed with: a new query recounts, an unchanged text is not rebuilt. */
  matcher: TextMatcher | null;
  count: number;
}

/** Whether `order` is `previous` with steps added at its end (same steps, same marks, in the same places). */
function grewAtEnd(order: readonly SearchEntry[], previous: readonly SearchEntry[]): boolean {
  if (previous.length === 0 || order.length < previous.length) return false;
  for (let i = 0; i < previous.length; i++) {
    const a = order[i]!;
    const b = previous[i]!;
    if (a.stepId !== b.stepId || a.superseded !== b.superseded) return false;
  }
  return true;
}

/**
 * The hits of a query over the displayed chain, kept as a count per step. A step's text is built
 * and scanned again only when one of the fields it is made of changed (`update` is told which
 * steps a flush touched), so a delta on a 10,000-step chain scans one text, not 10,000. Numbering
 * a hit ("3 / 12") sums counts, which is a few microseconds even on a long chain.
 */
export class FindIndex {
  #matcher: TextMatcher | null = null;
  #order: readonly SearchEntry[] = [];
  #positions = new Map<string, number>();
  #counts: number[] = [];
  #total = 0;
  readonly #cache = new Map<string, CachedStep>();
  /** How many step texts were scanned so far: what the tests read to see that a delta costs one. */
  scans = 0;

  constructor(private readonly stepOf: (stepId: string) => Step | undefined) {}

  get matcher(): TextMatcher | null {
    return this.#matcher;
  }

  get order(): readonly SearchEntry[] {
    return this.#order;
  }

  get total(): number {
    return this.#total;
  }

  /** A new query (or none): every step of the order is counted again. */
  setMatcher(matcher: TextMatcher | null): void {
    this.#matcher = matcher;
    this.#recount();
  }

  /** The chain's shape changed (a step added, a correction, a fold, a branch picked): take its new order. */
  setOrder(order: readonly SearchEntry[]): void {
    const previous = this.#order;
    this.#order = order;
    // The chain grew at its end (a streaming session): only the new steps are placed and counted.
    if (grewAtEnd(order, previous)) {
      for (let position = previous.length; position < order.length; position++) {
        const stepId = order[position]!.stepId;
        this.#positions.set(stepId, position);
        const count = this.#countOf(stepId);
        this.#counts[position] = count;
        this.#total += count;
      }
      return;
    }
    this.#positions = new Map(order.map((entry, position) => [entry.stepId, position]));
    this.#recount();
  }

  /** Any step may have changed (a fresh snapshot): place and count every step again (unchanged texts are not scanned). */
  recountAll(): void {
    this.#positions = new Map(this.#order.map((entry, position) => [entry.stepId, position]));
    this.#recount();
  }

  /** These steps' fields changed: count again those whose text did. */
  update(stepIds: Iterable<string>): void {
    for (const stepId of stepIds) {
      const position = this.#positions.get(stepId);
      if (position === undefined) continue;
      const count = this.#countOf(stepId);
      this.#total += count - (this.#counts[position] ?? 0);
      this.#counts[position] = count;
    }
  }

  /** How many hits a step holds (0 for a step off the order). */
  countIn(stepId: string): number {
    const position = this.#positions.get(stepId);
    return position === undefined ? 0 : (this.#counts[position] ?? 0);
  }

  /** Where a step is in the order, if it is on it. */
  positionOf(stepId: string): number | undefined {
    return this.#positions.get(stepId);
  }

  entryOf(stepId: string): SearchEntry | undefined {
    const position = this.#positions.get(stepId);
    return position === undefined ? undefined : this.#order[position];
  }

  /** The hit's number in the whole chain, 1-based ("3" of "3 / 12"); 0 when it is not a hit now. */
  numberOf(hit: HitRef): number {
    const position = this.#positions.get(hit.stepId);
    if (position === undefined || hit.ordinal >= (this.#counts[position] ?? 0)) return 0;
    let before = 0;
    for (let i = 0; i < position; i++) before += this.#counts[i] ?? 0;
    return before + hit.ordinal + 1;
  }

  /** The first hit at or after `position` (wrapping past the end), or null when there is none. */
  firstFrom(position: number): HitRef | null {
    const length = this.#order.length;
    if (this.#total === 0 || length === 0) return null;
    const start = Math.min(Math.max(position, 0), length - 1);
    for (let step = 0; step < length; step++) {
      const at = (start + step) % length;
      if ((this.#counts[at] ?? 0) > 0) return { stepId: this.#order[at]!.stepId, ordinal: 0 };
    }
    return null;
  }

  /** The hit after (`1`) or before (`-1`) `from`, wrapping at the ends; the first (or last) hit when `from` is null. */
  step(from: HitRef | null, direction: 1 | -1): HitRef | null {
    const length = this.#order.length;
    if (this.#total === 0) return null;
    const position = from === null ? undefined : this.#positions.get(from.stepId);
    if (from !== null && position !== undefined) {
      const ordinal = from.ordinal + direction;
      if (ordinal >= 0 && ordinal < (this.#counts[position] ?? 0)) return { stepId: from.stepId, ordinal };
    }
    const start = position ?? (direction === 1 ? -1 : length);
    for (let offset = 1; offset <= length; offset++) {
      const at = (((start + direction * offset) % length) + length) % length;
      const count = this.#counts[at] ?? 0;
      if (count > 0) return { stepId: this.#order[at]!.stepId, ordinal: direction === 1 ? 0 : count - 1 };
    }
    return null;
  }

  /**
   * Where the current hit is after the text or the chain changed: on its own step while that step
   * still holds a hit (the same one, or its last if fewer remain), else the next hit below where
   * it was (`lastPosition`, for a step that left the order).
   */
  settle(current: HitRef | null, lastPosition = 0): HitRef | null {
    if (this.#total === 0) return null;
    if (current === null) return this.firstFrom(lastPosition);
    const position = this.#positions.get(current.stepId);
    if (position === undefined) return this.firstFrom(lastPosition);
    const count = this.#counts[position] ?? 0;
    if (count > 0) return current.ordinal < count ? current : { stepId: current.stepId, ordinal: count - 1 };
    return this.firstFrom(position);
  }

  #recount(): void {
    this.#counts = this.#order.map((entry) => this.#countOf(entry.stepId));
    this.#total = this.#counts.reduce((sum, count) => sum + count, 0);
  }

  #countOf(stepId: string): number {
    const matcher = this.#matcher;
    if (matcher === null) return 0;
    const step = this.stepOf(stepId);
    if (!step) return 0;
    let cached = this.#cache.get(stepId);
    if (cached && !sameTextVersion(cached.version, step)) cached = undefined;
    if (cached && cached.matcher === matcher) return cached.count;
    const text = cached?.text ?? searchTextOf(step);
    this.scans++;
    const count = matcher.count(text);
    this.#cache.set(stepId, { version: textVersionOf(step), text, matcher, count });
    return count;
  }
}
