import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sendRestError } from '../rest-error-reply.js';

/** The protocol package's folder, found through the package's own exports (works from source and from a build). */
function protocolPackageDir(): string {
  return dirname(createRequire(import.meta.url).resolve('@interthought/protocol/package.json'));
}

/** URL name → file in the protocol package's `schema/` folder (generated from the zod schemas). */
export const PROTOCOL_DOCUMENTS = {
  'schema.json': 'interthought.schema.json',
  'asyncapi.json': 'asyncapi.json',
} as const;

/** `GET /api/protocol/schema.json` and `/api/protocol/asyncapi.json`: the generated contract documents. */
export async function protocolSchemaRoutes(app: FastifyInstance, options: { schemaDir?: string } = {}): Promise<void> {
  const schemaDir = options.schemaDir ?? join(protocolPackageDir(), 'schema');
  for (const [urlName, fileName] of Object.entries(PROTOCOL_DOCUMENTS)) {
    app.get(`/protocol/${urlName}`, async (request, reply) => {
      let text: string;
      try {
        // Read per request: the documents are small and may be regenerated while the server runs.
        text = await readFile(join(schemaDir, fileName), 'utf8');
      } catch (error) {
        request.log.warn({ err: error, fileName }, 'a protocol document is missing');
        return sendRestError(
          reply,
          'NOT_FOUND',
          `${fileName} has not been generated: run "pnpm --filter @interthought/protocol generate".`,
          404,
        );
      }
      return reply.type('application/json; charset=utf-8').send(text);
    });
  }
}
