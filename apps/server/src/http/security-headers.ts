import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { findFallbackPage } from './static-ui.js';

/** The CSP source of each inline `<script>` (no `src`) in a page: SvelteKit's bootstrap is one. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
    hashes.push(`'sha256-${createHash('sha256').update(match[1] ?? '').digest('base64')}'`);
  }
  return hashes;
}

/**
 * The Content-Security-Policy directives of the UI and the API. The SPA needs: its own scripts
 * plus the one inline bootstrap SvelteKit writes into the page (allowed by hash, read from the
 * built page, again whenever it changes, so no `unsafe-inline` and no `unsafe-eval` for scripts); its own
 * stylesheets plus inline style attributes (Svelte sets some, e.g. `display: contents` on the
 * bootstrap's wrapper); its own origin for fetch and the WebSocket (`'self'` covers ws: and wss:
 * to the same host); favicon as a file. Nothing may frame it.
 */
export function cspDirectives(scriptHashes: readonly string[] | (() => readonly string[])) {
  // A function is asked on every response: the built page may change under a running server.
  const hashes = typeof scriptHashes === 'function' ? [() => scriptHashes().join(' ')] : scriptHashes;
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'", ...hashes],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'"],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    // Off: on a plain-http LAN address it would make browsers ask for https subresources that do not exist.
    upgradeInsecureRequests: null,
  };
}

/**
 * The inline-script hashes of the built page, read again whenever the page changes (its size or
 * modification time): rebuilding the web app under a running server must not leave a page whose
 * bootstrap the CSP blocks (a blank page). A stat per response is the whole cost while it does not.
 */
export class BuiltPageHashes {
  #key = '';
  #hashes: string[] = [];

  constructor(private readonly webDir: string) {}

  current(): string[] {
    const page = findFallbackPage(this.webDir);
    if (page === undefined) return this.#remember('none', []);
    const path = join(this.webDir, page);
    try {
      const { mtimeMs, size } = statSync(path);
      const key = `${page}:${mtimeMs}:${size}`;
      if (key === this.#key) return this.#hashes;
      return this.#remember(key, inlineScriptHashes(readFileSync(path, 'utf8')));
    } catch {
      // Mid-rebuild the page may be gone for a moment: keep the last hashes rather than none.
      return this.#hashes;
    }
  }

  #remember(key: string, hashes: string[]): string[] {
    this.#key = key;
    this.#hashes = hashes;
    return hashes;
  }
}

/**
 * Browser security headers on every response (UI, API, errors), through @fastify/helmet:
 * CSP, `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer`
 * (a `?token=` in the address never leaks), cross-origin opener/resource policies. HSTS is left to
 * whatever terminates TLS: this server speaks plain http.
 */
export const securityHeaders = fp(
  async (app: FastifyInstance, options: { webDir: string }) => {
    const pageHashes = new BuiltPageHashes(options.webDir);
    await app.register(fastifyHelmet, {
      global: true,
      contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(() => pageHashes.current()) },
      frameguard: { action: 'deny' },
      referrerPolicy: { policy: 'no-referrer' },
      hsts: false,
    });
  },
  { name: 'security-headers' },
);
