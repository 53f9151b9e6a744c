import { defineProject } from 'vitest/config';

// Many tests start real processes (the server under tsx, redis-server, PostgreSQL, MCP servers,
// agent workers). On a loaded two-core machine, the whole suite running beside the web app's
// Chromium tests, one start can take well over ten seconds: the limits leave room for that, and
// a test that truly hangs still fails, with its own message, within a minute.
export default defineProject({
  test: { name: 'server', include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
});
