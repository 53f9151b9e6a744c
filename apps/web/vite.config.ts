import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

// In development the Interthought server runs separately on port 3000; the dev server
// forwards the WebSocket and the REST API to it so the app talks to one origin, as in production.
const target = 'http://127.0.0.1:3000';

export default defineConfig({
  plugins: [sveltekit()],
  build: {
    // Fonts stay files, however small (KaTeX_Size3 is under Vite's 4 kB inline limit): the CSP's
    // font-src is 'self' only, so a data: font would be blocked.
    assetsInlineLimit: (file) => (/\.(?:woff2?|ttf|otf)$/.test(file) ? false : undefined),
  },
  server: {
    proxy: {
      '/ws': { target, ws: true, changeOrigin: true },
      '/api': { target, changeOrigin: true },
    },
  },
});
