import { z } from 'zod';

/**
 * Imported first by hooks.client.ts, before any module that builds the protocol's schemas. Zod
 * compiles object parsers with `new Function` when it can, and probes for that with a
 * `new Function("")` when a schema is defined; the page's CSP (no 'unsafe-eval') refuses the probe
 * and the browser reports a violation on every page. The page validates a few frames a second, so
 * it needs no compiled parsers: switch them off (the server keeps them).
 */
z.config({ jitless: true });
