// A single-page app: the server only serves the built shell, the browser renders everything.
export const ssr = false;
export const prerender = false;
