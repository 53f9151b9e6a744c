import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
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
 * built page at start-up, so no `unsafe-inline` and no `unsafe-eval` for scripts); its own
 * stylesheets plus inline style attributes (Svelte sets some, e.g. `display: contents` on the
 * bootstrap's wrapper); its own origin for fetch and the WebSocket (`'self'` covers ws: and wss:
 * to the same host); favicon as a file. Nothing may frame it.
 */
export function cspDirectives(scriptHashes: readonly string[]) {
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'", ...scriptHashes],
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

function builtPageHashes(webDir: string): string[] {
  const page = findFallbackPage(webDir);
  return page === undefined ? [] : inlineScriptHashes(readFileSync(join(webDir, page), 'utf8'));
}

/**
 * Browser security headers on every response (UI, API, errors), through @fastify/helmet:
 * CSP, `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer`
 * (a `?token=` in the address never leaks), cross-origin opener/resource policies. HSTS is left to
 * whatever terminates TLS: this server speaks plain http.
 */
export const securityHeaders = fp(
  async (app: FastifyInstance, options: { webDir: string }) => {
    await app.register(fastifyHelmet, {
      global: true,
      contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(builtPageHashes(options.webDir)) },
      frameguard: { action: 'deny' },
      referrerPolicy: { policy: 'no-referrer' },
      hsts: false,
    });
  },
  { name: 'security-headers' },
);
