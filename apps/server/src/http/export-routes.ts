import type { FastifyInstance } from 'fastify';
import { exportFileName, exportNdjson, foldExport } from '../core/transfer/session-export.js';
import { ImportError, parseImport, type ParsedImport } from '../core/transfer/session-import.js';
import { isKnownTimeZone, sessionTranscript } from '../core/transfer/session-transcript.js';
import { TRANSCRIPT_LANGUAGES, type TranscriptLanguage } from '../core/transfer/transcript-words.js';
import { sendRestError } from '../rest-error-reply.js';

/** The largest export `POST /api/sessions/import` reads. */
export const IMPORT_BODY_LIMIT = 16 * 1024 * 1024;

/** Content types an import is read from as text (`text/plain` has Fastify's own parser). */
const IMPORT_CONTENT_TYPES = ['application/x-ndjson', 'application/octet-stream'];

interface ExportQuery {
  format: 'json' | 'md';
  /** For `md`: the reader's IANA time zone (default UTC) and language (default en), PROTOCOL.md §20.5. */
  tz?: string;
  lang?: TranscriptLanguage;
}

/**
 * `GET /api/sessions/:id/export?format=json|md` (the log as NDJSON, or a Markdown transcript of
 * the current chain) and `POST /api/sessions/import` (an export as a new session, or 400
 * `BAD_IMPORT` naming the first bad line), PROTOCOL.md §20.5.
 */
export async function exportRoutes(app: FastifyInstance): Promise<void> {
  app.addContentTypeParser(IMPORT_CONTENT_TYPES, { parseAs: 'string' }, (_request, body, done) => done(null, body));

  // A missing session throws SESSION_NOT_FOUND, which the scope's error handler answers with 404.
  app.get<{ Params: { id: string }; Querystring: ExportQuery }>(
    '/sessions/:id/export',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: {
            format: { type: 'string', enum: ['json', 'md'], default: 'json' },
            tz: { type: 'string', minLength: 1, maxLength: 64 },
            lang: { type: 'string', enum: [...TRANSCRIPT_LANGUAGES] },
          },
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const { tz, lang } = request.query;
      if (tz !== undefined && !isKnownTimeZone(tz)) {
        return sendRestError(reply, 'BAD_REQUEST', `tz must be an IANA time zone such as Europe/Berlin or UTC; "${tz}" is not one.`);
      }
      await app.authentication.gate.require(request, id, 'see');
      const exported = await app.sessions.exportSession(id);
      if (request.query.format === 'md') {
        return reply
          .type('text/markdown; charset=utf-8')
          .header('content-disposition', `attachment; filename="${exportFileName(id, 'md')}"`)
          .send(
            sessionTranscript(foldExport(exported), {
              ...(tz === undefined ? {} : { timeZone: tz }),
              ...(lang === undefined ? {} : { lang }),
              // Written for whoever downloads it: "you" is them (PROTOCOL.md §21.2).
              reader: { userId: request.user?.id, shareId: request.share?.shareId },
            }),
          );
      }
      return reply
        .type('application/x-ndjson')
        .header('content-disposition', `attachment; filename="${exportFileName(id, 'ndjson')}"`)
        .send(exportNdjson(exported));
    },
  );

  app.post('/sessions/import', { bodyLimit: IMPORT_BODY_LIMIT }, async (request, reply) => {
    const { gate } = app.authentication;
    gate.requireCreator(request);
    const { body } = request;
    if (body !== undefined && body !== null && typeof body !== 'string') {
      return sendRestError(reply, 'BAD_REQUEST', 'Send the export as it was downloaded, with content-type application/x-ndjson (or text/plain).');
    }
    let parsed: ParsedImport;
    try {
      parsed = parseImport(body ?? '', new Date().toISOString());
    } catch (error) {
      if (!(error instanceof ImportError)) throw error;
      return reply.code(400).send({ code: 'BAD_IMPORT', message: error.message, line: error.line });
    }
    const session = await app.sessions.importSession(parsed, gate.ownerFor(request));
    return reply.code(201).send({ session });
  });
}
