// The frame around every page: the left rail, the language switch and the shortcuts overlay.
export { default as AppRail } from './AppRail.svelte';
export { default as LanguageSwitch } from './LanguageSwitch.svelte';
export { default as ShortcutsOverlay } from './ShortcutsOverlay.svelte';
