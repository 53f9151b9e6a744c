// Icons: one component over one table of drawings, so a glyph is drawn the same everywhere.
export { default as Icon } from './Icon.svelte';
export { ICON_PATHS, type IconDrawing, type IconName } from './icon-paths.js';
