import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
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
