import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendRestError } from '../rest-error-reply.js';

/** adapter-static writes its SPA fallback under the name it was given; either is served. */
export const FALLBACK_PAGES = ['200.html', 'index.html'] as const;

/** The SPA fallback page in `webDir`, or undefined when the UI has not been built. */
export function findFallbackPage(webDir: string): string | undefined {
  return FALLBACK_PAGES.find((name) => existsSync(join(webDir, name)));
}

function isApiOrSocket(url: string): boolean {
  return /^\/(api|ws)(\/|\?|$)/.test(url);
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Interthought</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>Interthought server is running</h1>
<p>The web UI has not been built yet. Build it, then restart the server:</p>
<pre>pnpm --filter @interthought/web build</pre>
<p>The WebSocket API is available at <code>/ws</code> and the REST API at <code>/api</code>
(try <a href="/api/health">/api/health</a>).</p>
</body>
</html>
`;

function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendRestError(reply, 'NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}.`, 404);
}

/**
 * The web UI: files from `webDir`, and for any other GET outside /api and /ws the SPA fallback
 * page, so client-side routes survive a reload. Without a build, `/` explains how to make one.
 */
export async function staticUi(app: FastifyInstance, options: { webDir: string }): Promise<void> {
  const fallback = findFallbackPage(options.webDir);
  if (fallback === undefined) {
    app.log.warn({ webDir: options.webDir }, 'the web UI is not built: / explains how to build it');
    app.get('/', async (_request, reply) => reply.type('text/html; charset=utf-8').send(NOT_BUILT_PAGE));
    app.setNotFoundHandler(notFound);
    return;
  }
  await app.register(fastifyStatic, {
    root: options.webDir,
    cacheControl: false,
    setHeaders(response, filePath) {
      // SvelteKit fingerprints everything under _app/immutable, so it can be cached for good;
      // anything else may change with the next build.
      const immutable = /[\\/]_app[\\/]immutable[\\/]/.test(filePath);
      response.setHeader('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  app.setNotFoundHandler((request, reply) => {
    const readsPage = request.method === 'GET' || request.method === 'HEAD';
    if (!readsPage || isApiOrSocket(request.url)) return notFound(request, reply);
    return reply.header('cache-control', 'no-cache').sendFile(fallback);
  });
}
