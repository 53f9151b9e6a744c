import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineProject } from 'vitest/config';

// svelte() rather than sveltekit(): the kit plugin expects to own the whole Vite run and fails
// when vitest loads this project from the repository root.
// The browser condition below would hand tests the browser placeholder build of `ws` (it throws on use); tests that run a real
// WebSocket server need its Node entry.
const wsNodeEntry = join(dirname(createRequire(import.meta.url).resolve('ws/package.json')), 'wrapper.mjs');

export default defineProject({
  plugins: [svelte({ compilerOptions: { runes: true } })],
  resolve: {
    // Components are mounted in happy-dom, so Svelte's browser build is the one under test.
    conditions: ['browser'],
    alias: [
      { find: '$lib', replacement: fileURLToPath(new URL('./src/lib', import.meta.url)) },
      { find: /^ws$/, replacement: wsNodeEntry },
      // happy-dom has no layout for a virtualized list to measure: component tests draw every row.
      { find: /^virtua\/svelte$/, replacement: fileURLToPath(new URL('./test/support/virtua-without-layout.ts', import.meta.url)) },
    ],
  },
  test: {
    name: 'web',
    // Unit and component tests run in happy-dom; end-to-end files opt into node with
    // `// @vitest-environment node` and drive real Chromium against the real server.
    environment: 'happy-dom',
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
