import type { CorrectionFilter, CorrectionRecord } from '@interthought/protocol';
import type { RestApi } from '$lib/api/rest-api.js';
import { sameFilter } from './url-filters.js';

/** How many corrections a page asks for. */
export const CORRECTIONS_PAGE_SIZE = 20;

export type CorrectionsPhase = 'loading' | 'ready' | 'error';

/** Someone who corrected, as the list names them: their id (the `user` filter) and name when known. */
export interface KnownPerson {
  by: string;
  byName: string | undefined;
}

export interface CorrectionsListDeps {
  api: Pick<RestApi, 'corrections'>;
}

/**
 * The Corrections page's list (`GET /api/corrections`): the first page for the filters the address
 * names, then "Load more" by `nextCursor`. An answer for filters no longer shown is dropped, so
 * changing a filter quickly never mixes two lists. It also remembers the values it has seen
 * (agents, models, tools, people, sessions), which the filters offer as choices.
 */
export class CorrectionsList {
  #filter = $state.raw<CorrectionFilter>({});
  #records = $state.raw<CorrectionRecord[]>([]);
  #cursor = $state<string | undefined>();
  #phase = $state<CorrectionsPhase>('loading');
  #error = $state.raw<unknown>();
  #loadingMore = $state(false);
  #moreError = $state.raw<unknown>();
  #seen = $state.raw<CorrectionRecord[]>([]);
  #generation = 0;
  #abort: AbortController | undefined;
  #started = false;

  constructor(private readonly deps: CorrectionsListDeps) {}

  get filter(): CorrectionFilter {
    return this.#filter;
  }
  get records(): readonly CorrectionRecord[] {
    return this.#records;
  }
  get phase(): CorrectionsPhase {
    return this.#phase;
  }
  /** Why the first page failed (an ApiError with the server's code and message). */
  get error(): unknown {
    return this.#error;
  }
  get canLoadMore(): boolean {
    return this.#phase === 'ready' && this.#cursor !== undefined;
  }
  get loadingMore(): boolean {
    return this.#loadingMore;
  }
  /** Why the last "Load more" failed; the list shown so far stays. */
  get moreError(): unknown {
    return this.#moreError;
  }

  /** Show the corrections `filter` names; the same filters again keep what is shown. */
  show(filter: CorrectionFilter): Promise<void> {
    if (this.#started && sameFilter(filter, this.#filter) && this.#phase !== 'error') return Promise.resolve();
    this.#started = true;
    this.#filter = filter;
    return this.#loadFirst();
  }

  /** Ask again for the first page after an error. */
  retry(): Promise<void> {
    return this.#loadFirst();
  }

  async loadMore(): Promise<void> {
    const before = this.#cursor;
    if (!this.canLoadMore || this.#loadingMore || before === undefined) return;
    const generation = this.#generation;
    this.#loadingMore = true;
    this.#moreError = undefined;
    try {
      const page = await this.deps.api.corrections(this.#filter, { before, limit: CORRECTIONS_PAGE_SIZE }, this.#abort?.signal);
      if (generation !== this.#generation) return;
      // A correction made between two pages may shift the boundary: never show one twice.
      const shown = new Set(this.#records.map(keyOf));
      const added = page.corrections.filter((record) => !shown.has(keyOf(record)));
      this.#records = [...this.#records, ...added];
      this.#cursor = page.nextCursor;
      this.#remember(added);
    } catch (error) {
      if (generation === this.#generation && !isAbort(error)) this.#moreError = error;
    } finally {
      if (generation === this.#generation) this.#loadingMore = false;
    }
  }

  /** Stop what is on its way (the page is left). */
  dispose(): void {
    this.#generation += 1;
    this.#abort?.abort();
  }

  /** The distinct values of `field` among the corrections seen, sorted, with `current` kept even when no row has it. */
  choices(field: 'agent' | 'model' | 'tool', current?: string): string[] {
    const values = new Set<string>();
    for (const record of this.#seen) {
      const value = record[field];
      if (value) values.add(value);
    }
    if (current) values.add(current);
    return [...values].sort((a, b) => a.localeCompare(b));
  }

  /** Who corrected, among the corrections seen (a user id the `user` filter takes), with `current` kept. */
  people(current?: string): KnownPerson[] {
    const people = new Map<string, string | undefined>();
    for (const record of this.#seen) if (!people.has(record.by) || record.byName !== undefined) people.set(record.by, record.byName ?? people.get(record.by));
    if (current && !people.has(current)) people.set(current, undefined);
    return [...people].map(([by, byName]) => ({ by, byName }));
  }

  /** The sessions seen, with their task, newest correction first. */
  sessions(): { sessionId: string; task: string }[] {
    const sessions = new Map<string, string>();
    for (const record of this.#seen) if (!sessions.has(record.sessionId)) sessions.set(record.sessionId, record.task);
    return [...sessions].map(([sessionId, task]) => ({ sessionId, task }));
  }

  async #loadFirst(): Promise<void> {
    this.#abort?.abort();
    const abort = new AbortController();
    this.#abort = abort;
    const generation = ++this.#generation;
    this.#phase = 'loading';
    this.#error = undefined;
    this.#moreError = undefined;
    this.#loadingMore = false;
    this.#records = [];
    this.#cursor = undefined;
    try {
      const page = await this.deps.api.corrections(this.#filter, { limit: CORRECTIONS_PAGE_SIZE }, abort.signal);
      if (generation !== this.#generation) return;
      this.#records = page.corrections;
      this.#cursor = page.nextCursor;
      this.#remember(page.corrections);
      this.#phase = 'ready';
    } catch (error) {
      if (generation !== this.#generation || isAbort(error)) return;
      this.#error = error;
      this.#phase = 'error';
    }
  }

  #remember(records: readonly CorrectionRecord[]): void {
    if (records.length) this.#seen = [...this.#seen, ...records];
  }
}

const keyOf = (record: CorrectionRecord) => `${record.sessionId} ${record.stepId} ${record.correctedStepId}`;

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}
