import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/server.js';

function webBuild(fallbackName: '200.html' | 'index.html'): string {
  const dir = mkdtempSync(join(tmpdir(), 'interthought-web-'));
  writeFileSync(join(dir, fallbackName), `<!doctype html><title>SPA ${fallbackName}</title>`);
  mkdirSync(join(dir, '_app', 'immutable'), { recursive: true });
  writeFileSync(join(dir, '_app', 'immutable', 'entry.abc123.js'), 'console.log("entry")');
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

describe.each(['200.html', 'index.html'] as const)('static UI with a %s fallback', (fallbackName) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp({ webDir: webBuild(fallbackName) });
  });
  afterAll(() => app.close());

  it('serves the SPA page at /', async () => {
    const response = await app.inject('/');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain(`SPA ${fallbackName}`);
  });

  it('serves the SPA page for a client-side route', async () => {
    const response = await app.inject('/sessions/abc?view=tree');
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain(`SPA ${fallbackName}`);
  });

  it('serves build files, fingerprinted ones cached for good', async () => {
    const asset = await app.inject('/_app/immutable/entry.abc123.js');
    expect(asset.statusCode).toBe(200);
    expect(asset.body).toBe('console.log("entry")');
    expect(asset.headers['cache-control']).toContain('immutable');
    const icon = await app.inject('/favicon.svg');
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toContain('image/svg+xml');
  });

  it('keeps API and non-GET misses as JSON 404s', async () => {
    for (const request of [{ url: '/api/missing' }, { url: '/ws/extra' }, { url: '/anything', method: 'POST' as const }]) {
      const response = await app.inject(request);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('still answers the API', async () => {
    expect((await app.inject('/api/health')).json()).toMatchObject({ ok: true });
  });
});

describe('static UI before the web app is built', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp({ webDir: join(tmpdir(), 'interthought-missing-build-dir') });
  });
  afterAll(() => app.close());

  it('explains at / how to build the UI', async () => {
    const response = await app.inject('/');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('pnpm --filter @interthought/web build');
  });

  it('answers other paths with a JSON 404 and keeps the API working', async () => {
    expect((await app.inject('/somewhere')).statusCode).toBe(404);
    expect((await app.inject('/api/health')).statusCode).toBe(200);
  });
});
