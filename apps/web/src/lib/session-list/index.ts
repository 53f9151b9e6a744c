// The sessions list (the rail's, and the home page's recent ones): its state, one row of it, and
// deleting a session for everyone watching it.
export { SessionList } from './session-list.svelte.js';
export { SessionDeletion, type DeletionTarget, type SessionDeletionDeps } from './session-deletion.svelte.js';
export { default as SessionListItem } from './SessionListItem.svelte';
export { default as DeleteSessionDialog } from './DeleteSessionDialog.svelte';
