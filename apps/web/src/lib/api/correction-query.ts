import type { CorrectionExportFormat, CorrectionFilter } from '@interthought/protocol';

/** The filters of `GET /api/corrections` and its export (PROTOCOL.md §26.2), in the order a query names them. */
export const CORRECTION_FILTER_KEYS = ['agent', 'model', 'kind', 'tool', 'user', 'session', 'since', 'until'] as const satisfies readonly (keyof CorrectionFilter)[];

/** The filters as query parameters; empty ones are left out. The Corrections page's address uses the same names, so a shared view and the API agree. */
export function correctionFilterQuery(filter: CorrectionFilter): URLSearchParams {
  const query = new URLSearchParams();
  for (const key of CORRECTION_FILTER_KEYS) {
    const value = filter[key];
    if (value !== undefined && value !== '') query.set(key, value);
  }
  return query;
}

/** The address of one page of the list: `before` is the previous page's `nextCursor`. */
export function correctionListPath(filter: CorrectionFilter, options: { before?: string | undefined; limit?: number | undefined } = {}): string {
  const query = correctionFilterQuery(filter);
  if (options.limit !== undefined) query.set('limit', String(options.limit));
  if (options.before !== undefined) query.set('before', options.before);
  return query.size ? `/api/corrections?${query}` : '/api/corrections';
}

/** The address of an export of every matching correction (§26.3). */
export function correctionExportPath(format: CorrectionExportFormat, filter: CorrectionFilter): string {
  const query = new URLSearchParams({ format });
  for (const [key, value] of correctionFilterQuery(filter)) query.set(key, value);
  return `/api/corrections/export?${query}`;
}
