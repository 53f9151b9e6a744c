// Access to a server that needs a token: taken once from the address, kept for the tab, asked for when missing.
export { AccessGate, type AccessGateDeps, type AccessProblem } from './access-gate.svelte.js';
export { splitToken, takeTokenFromAddress, type SplitAddress } from './token-intake.js';
export { TOKEN_STORAGE_KEY, TokenStore, tabStorage } from './token-store.js';
export { default as AccessPanel } from './AccessPanel.svelte';
