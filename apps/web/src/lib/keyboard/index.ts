export { cardControls, cardOf, followCardTabOrder, handleCardKey, isStepCard, nextTabStop } from './card-tab-order.js';
export { isApplePlatform, isSaveShortcut, isTypingTarget, modifierLabel } from './shortcut-keys.js';
export { ShortcutReader, SHORTCUT_LIST, type ShortcutAction } from './shortcut-reader.js';
