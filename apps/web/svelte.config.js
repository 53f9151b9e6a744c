import adapter from '@sveltejs/adapter-static';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

/** @type {import('@sveltejs/kit').Config} */
const config = {
  preprocess: vitePreprocess(),
  compilerOptions: { runes: true },
  kit: {
    // A single-page app: every URL falls back to index.html and the client router takes over.
    adapter: adapter({ pages: 'build', assets: 'build', fallback: 'index.html', strict: true }),
  },
};

export default config;
