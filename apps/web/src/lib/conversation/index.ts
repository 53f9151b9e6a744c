// Conversations (PROTOCOL.md §20): the composer and the messages on their way, forks, export and import.
export { MessageDraft, type MessageProblem } from './message-draft.svelte.js';
export { SessionTransfer, type PickedFile, type SessionTransferDeps } from './session-transfer.svelte.js';
export { saveFile } from './export-download.js';
export { IMPORT_ACCEPT, takePickedFile } from './import-file.js';
export { default as Composer } from './Composer.svelte';
export { default as PendingMessages } from './PendingMessages.svelte';
export { default as ForkOrigin } from './ForkOrigin.svelte';
export { default as SessionMenu } from './SessionMenu.svelte';
export { default as ImportButton } from './ImportButton.svelte';
