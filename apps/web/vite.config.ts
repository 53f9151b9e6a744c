import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

// In development the Interthought server runs separately on port 3000; the dev server
// forwards the WebSocket and the REST API to it so the app talks to one origin, as in production.
const target = 'http://127.0.0.1:3000';

export default defineConfig({
  plugins: [sveltekit()],
  server: {
    proxy: {
      '/ws': { target, ws: true, changeOrigin: true },
      '/api': { target, changeOrigin: true },
    },
  },
});
