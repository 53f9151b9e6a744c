import { CorrectionFilterSchema, type CorrectionFilter } from '@interthought/protocol';
import { CORRECTION_FILTER_KEYS, correctionFilterQuery } from '$lib/api/correction-query.js';

/**
 * The Corrections page keeps its filters in its address (`/corrections?kind=thought&agent=demo`),
 * so a filtered view can be shared and survives a reload. The names are the API's (§26.2).
 */

/** The filters an address names. A value the API would refuse (an unknown kind, a malformed date) is dropped, not sent: one bad parameter must not empty the page. */
export function filterFromQuery(query: URLSearchParams): CorrectionFilter {
  const filter: CorrectionFilter = {};
  for (const key of CORRECTION_FILTER_KEYS) {
    const value = query.get(key);
    if (value === null || value === '') continue;
    const parsed = CorrectionFilterSchema.shape[key].safeParse(value);
    if (parsed.success && parsed.data !== undefined) (filter as Record<string, string>)[key] = parsed.data;
  }
  return filter;
}

/** The page's address for `filter`. */
export function filterHref(filter: CorrectionFilter, path = '/corrections'): string {
  const query = correctionFilterQuery(filter);
  return query.size ? `${path}?${query}` : path;
}

/** Two filters name the same corrections. */
export function sameFilter(a: CorrectionFilter, b: CorrectionFilter): boolean {
  return correctionFilterQuery(a).toString() === correctionFilterQuery(b).toString();
}

/** `filter` with `key` set to `value`, or without it when `value` is empty. */
export function withFilter<K extends keyof CorrectionFilter>(filter: CorrectionFilter, key: K, value: CorrectionFilter[K] | ''): CorrectionFilter {
  const next: CorrectionFilter = { ...filter };
  if (value === '' || value === undefined) delete next[key];
  else next[key] = value;
  return next;
}

/** Whether any filter is set. */
export function isFiltered(filter: CorrectionFilter): boolean {
  return correctionFilterQuery(filter).size > 0;
}

/*
 * The date fields show days in the reader's time zone; the address carries the instants the API
 * reads: `since` is the start of the first day (inclusive), `until` the start of the day after the
 * last (exclusive), so "until 3 Dec" includes the whole of 3 Dec.
 */

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function localMidnight(day: string): Date | undefined {
  const match = DAY.exec(day);
  if (!match) return undefined;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function dayValue(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** `since` for a date field's value (`YYYY-MM-DD`): that day's local midnight; '' for an empty or bad value. */
export function sinceOfDay(day: string): string {
  return localMidnight(day)?.toISOString() ?? '';
}

/** `until` for a date field's value: the next day's local midnight, so the day itself is included. */
export function untilOfDay(day: string): string {
  const date = localMidnight(day);
  if (!date) return '';
  date.setDate(date.getDate() + 1);
  return date.toISOString();
}

/** The date field's value for a `since` instant. */
export function dayOfSince(since: string | undefined): string {
  if (since === undefined) return '';
  const date = new Date(since);
  return Number.isNaN(date.getTime()) ? '' : dayValue(date);
}

/** The date field's value for an `until` instant: the last day it includes. */
export function dayOfUntil(until: string | undefined): string {
  if (until === undefined) return '';
  const date = new Date(until);
  return Number.isNaN(date.getTime()) ? '' : dayValue(new Date(date.getTime() - 1));
}
