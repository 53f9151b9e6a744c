import { CorrectionExportFormatSchema, CorrectionFilterSchema, type CorrectionExportFormat, type CorrectionFilter } from '@interthought/protocol';
import { z } from 'zod';
import { CorrectionCursorError } from './correction-index.js';

/** `GET /api/corrections`'s page size (§26.2). */
export const CORRECTION_PAGE_LIMITS = { min: 1, max: 100, pageDefault: 20 } as const;

const PageQuerySchema = CorrectionFilterSchema.extend({
  limit: z.coerce.number().int().min(CORRECTION_PAGE_LIMITS.min).max(CORRECTION_PAGE_LIMITS.max).default(CORRECTION_PAGE_LIMITS.pageDefault),
  before: z.string().min(1).max(512).optional(),
});

const ExportQuerySchema = CorrectionFilterSchema.extend({ format: CorrectionExportFormatSchema });

/** A malformed query of the corrections routes: 400 `BAD_REQUEST` with this message. */
export class CorrectionQueryError extends Error {
  override readonly name = 'CorrectionQueryError';
}

/** Whether `error` says the query was malformed (its parameters, or its cursor). */
export function isBadCorrectionQuery(error: unknown): error is Error {
  return error instanceof CorrectionQueryError || error instanceof CorrectionCursorError;
}

/** The query, or `CorrectionQueryError` saying what is wrong with it (unknown parameters included). */
function parseQuery<T>(schema: z.ZodType<T>, query: unknown, route: string): T {
  const parsed = schema.safeParse(query ?? {});
  if (parsed.success) return parsed.data;
  throw new CorrectionQueryError(`Invalid query of ${route}: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`);
}

/** The filter without the parameters that are not filters. */
function filterOf(query: CorrectionFilter & Record<string, unknown>): CorrectionFilter {
  const filter: CorrectionFilter = {};
  for (const key of Object.keys(CorrectionFilterSchema.shape) as (keyof CorrectionFilter)[]) {
    const value = query[key];
    if (value !== undefined) Object.assign(filter, { [key]: value });
  }
  return filter;
}

/** `GET /api/corrections`'s query (§26.2). */
export function parsePageQuery(query: unknown): { filter: CorrectionFilter; limit: number; before: string | undefined } {
  const parsed = parseQuery(PageQuerySchema, query, 'GET /api/corrections');
  return { filter: filterOf(parsed), limit: parsed.limit, before: parsed.before };
}

/** `GET /api/corrections/export`'s query (§26.3). */
export function parseExportQuery(query: unknown): { filter: CorrectionFilter; format: CorrectionExportFormat } {
  const parsed = parseQuery(ExportQuerySchema, query, 'GET /api/corrections/export');
  return { filter: filterOf(parsed), format: parsed.format };
}
