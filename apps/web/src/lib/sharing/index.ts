// Share links: taken from a session's address, presented on that page, made and revoked in the Share dialog.
export { FULL_RIGHTS, sessionRights, type RightsInput, type SessionRights, type SessionRole } from './session-rights.js';
export { SHARE_EXPIRIES, expiresInSec, type ShareExpiry } from './share-expiry.js';
export { ShareDialogState, type CreatedLink, type ShareDialogDeps } from './share-dialog.svelte.js';
export { sessionIdOfPath, takeShareFromAddress } from './share-intake.js';
export { ShareScope, type PresentedShare } from './share-scope.js';
export { SHARE_STORAGE_KEY, ShareTokenStore } from './share-token-store.js';
export { default as ShareDialog } from './ShareDialog.svelte';
export { default as SharedBanner } from './SharedBanner.svelte';
export { default as ShareEndedPanel } from './ShareEndedPanel.svelte';
