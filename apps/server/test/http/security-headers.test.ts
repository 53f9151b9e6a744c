import { createHash } from 'node:crypto';
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineScriptHashes } from '../../src/http/security-headers.js';
import { buildTestApp } from '../support/server.js';

const BOOTSTRAP = `\n  {\n    __sveltekit_x = { base: "" };\n    Promise.all([import("/_app/start.js")]);\n  }\n`;
const PAGE = `<!doctype html><html><head><script type="module" src="/_app/start.js"></script></head>
<body><div style="display: contents"><script>${BOOTSTRAP}</script></div></body></html>`;

function builtUi(): string {
  const dir = mkdtempSync(join(tmpdir(), 'interthought-csp-'));
  writeFileSync(join(dir, 'index.html'), PAGE);
  return dir;
}

function directives(csp: string): Map<string, string[]> {
  return new Map(csp.split(';').map((part) => part.trim().split(/\s+/)).filter((words) => words[0]).map(([name = '', ...values]) => [name, values]));
}

describe('browser security headers', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp({ webDir: builtUi() });
  });
  afterAll(() => app.close());

  it('hashes exactly the inline scripts of a page, not those with src', () => {
    const expected = `'sha256-${createHash('sha256').update(BOOTSTRAP).digest('base64')}'`;
    expect(inlineScriptHashes(PAGE)).toEqual([expected]);
  });

  it('gives the UI a CSP that allows its own scripts and its bootstrap by hash, and no eval or inline script', async () => {
    const page = await app.inject({ url: '/' });
    expect(page.statusCode).toBe(200);
    const csp = directives(String(page.headers['content-security-policy']));
    expect(csp.get('script-src')).toEqual(["'self'", ...inlineScriptHashes(PAGE)]);
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.has('upgrade-insecure-requests')).toBe(false);
    const all = String(page.headers['content-security-policy']);
    expect(all).not.toContain('unsafe-eval');
    expect(csp.get('script-src')).not.toContain("'unsafe-inline'");
  });

  it('follows a rebuild under the running server: the next response allows the new bootstrap, not the old one', async () => {
    const webDir = builtUi();
    const running = await buildTestApp({ webDir });
    try {
      const before = directives(String((await running.inject({ url: '/' })).headers['content-security-policy']));
      expect(before.get('script-src')).toEqual(["'self'", ...inlineScriptHashes(PAGE)]);
      // A rebuild writes a new bootstrap (new chunk names) into the same page.
      const rebuilt = PAGE.replace('/_app/start.js")]', '/_app/immutable/entry/start.B7xQ2.js")]');
      writeFileSync(join(webDir, 'index.html'), rebuilt);
      const later = new Date(Date.now() + 5_000);
      utimesSync(join(webDir, 'index.html'), later, later);
      const page = await running.inject({ url: '/' });
      const after = directives(String(page.headers['content-security-policy']));
      // The page works: each inline script it serves is allowed, and the old one no longer is.
      expect(after.get('script-src')).toEqual(["'self'", ...inlineScriptHashes(page.body)]);
      expect(inlineScriptHashes(page.body)).toEqual(inlineScriptHashes(rebuilt));
      expect(after.get('script-src')).not.toContain(inlineScriptHashes(PAGE)[0]);
      // API answers carry the same policy.
      expect(String((await running.inject({ url: '/api/health' })).headers['content-security-policy'])).toContain(inlineScriptHashes(rebuilt)[0]);
    } finally {
      await running.close();
    }
  });

  it('sends nosniff, DENY framing and no-referrer on pages, API answers, errors and the SPA fallback', async () => {
    for (const url of ['/', '/sessions/some-id', '/api/health', '/api/sessions', '/api/sessions/missing', '/api/nothing-here']) {
      const response = await app.inject({ url });
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
      expect(response.headers['x-frame-options'], url).toBe('DENY');
      expect(response.headers['referrer-policy'], url).toBe('no-referrer');
      expect(response.headers['content-security-policy'], url).toContain("frame-ancestors 'none'");
      expect(response.headers['strict-transport-security'], url).toBeUndefined();
    }
  });
});
