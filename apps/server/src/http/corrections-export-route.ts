import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { correctionExportLines } from '../corrections/export-stream.js';
import { CorrectionQueryError, parseExportQuery } from '../corrections/correction-request.js';
import { sendRestError } from '../rest-error-reply.js';
import { visibilityOf } from '../corrections/reader-visibility.js';

/**
 * `GET /api/corrections/export?format=preference|sft`: every correction the requester may see and
 * the filters keep, newest first, as NDJSON chat lines, streamed (PROTOCOL.md §26.3).
 */
export async function correctionsExportRoute(app: FastifyInstance): Promise<void> {
  app.get('/corrections/export', async (request, reply) => {
    let parsed: ReturnType<typeof parseExportQuery>;
    try {
      parsed = parseExportQuery(request.query);
    } catch (error) {
      if (error instanceof CorrectionQueryError) return sendRestError(reply, 'BAD_REQUEST', error.message);
      throw error;
    }
    const { filter, format } = parsed;
    const visibility = await visibilityOf(request, app.authentication.gate);
    const lines = correctionExportLines({ index: app.corrections, sessions: app.sessions, query: { filter, visibility }, format });
    return reply
      .type('application/x-ndjson')
      .header('content-disposition', `attachment; filename="interthought-corrections-${format}.ndjson"`)
      .send(Readable.from(lines));
  });
}
