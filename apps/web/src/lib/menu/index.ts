export { MenuPopup, menuMove } from './menu-popup.svelte.js';
export { default as PopupMenu } from './PopupMenu.svelte';
