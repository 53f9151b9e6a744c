export { isApplePlatform, isSaveShortcut, isTypingTarget, modifierLabel } from './shortcut-keys.js';
export { ShortcutReader, SHORTCUT_LIST, type ShortcutAction } from './shortcut-reader.js';
