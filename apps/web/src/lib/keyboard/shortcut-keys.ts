/** Whether the platform labels its command key ⌘ (Apple) rather than Ctrl. */
export function isApplePlatform(): boolean {
  if (typeof navigator === 'undefined') return false;
  const platform = (navigator as Navigator & { userAgentData?: { platform?: string } }).userAgentData?.platform ?? navigator.platform ?? '';
  return /mac|iphone|ipad|ipod/i.test(platform);
}

/** The name of the key that goes with Enter to save: "⌘" on Apple devices, "Ctrl" elsewhere. */
export function modifierLabel(): string {
  return isApplePlatform() ? '⌘' : 'Ctrl';
}

/** Ctrl+Enter or Cmd+Enter. */
export function isSaveShortcut(event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey'>): boolean {
  return event.key === 'Enter' && (event.ctrlKey || event.metaKey);
}

/** Whether a key event comes from a place where typing means text (inputs, textareas, editable content). */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!target || typeof (target as Element).closest !== 'function') return false;
  const element = target as HTMLElement;
  if (element.isContentEditable) return true;
  return element.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]') !== null;
}
