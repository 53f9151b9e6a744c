// The sessions the rail lists, and deleting one for everyone watching it.
export { SessionList } from './session-list.svelte.js';
export { SessionDeletion, type DeletionTarget, type SessionDeletionDeps } from './session-deletion.svelte.js';
export { default as DeleteSessionDialog } from './DeleteSessionDialog.svelte';
