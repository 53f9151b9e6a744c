// One session's page: the controller that connects a SessionView to the server, and its header.
export { SessionController, type SessionControllerDeps } from './session-controller.svelte.js';
export { focusedStep, moveStepFocus, stepElements, type StepMove } from './step-focus.js';
export { default as SessionPage } from './SessionPage.svelte';
export { default as SessionHeader } from './SessionHeader.svelte';
export { default as StatusBadge } from './StatusBadge.svelte';
export { default as ConnectionIndicator } from './ConnectionIndicator.svelte';
