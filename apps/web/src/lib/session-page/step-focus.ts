/** The step elements of a timeline that can take focus, top to bottom (folded ones are not rendered). */
export function stepElements(container: ParentNode): HTMLElement[] {
  return Array.from(container.querySelectorAll<HTMLElement>('[data-step-id]'));
}

/** The step that holds the focus (the card itself or a control inside it). */
export function focusedStep(container: ParentNode, active: Element | null): HTMLElement | null {
  const step = active?.closest<HTMLElement>('[data-step-id]') ?? null;
  return step && container.contains(step) ? step : null;
}

/**
 * Move focus to the next / previous / first / last step. From nothing focused, "next" starts at
 * the first step and "previous" at the last. Returns the step focused, if any.
 */
export function moveStepFocus(container: ParentNode, active: Element | null, where: 'next' | 'previous' | 'first' | 'last'): HTMLElement | null {
  const steps = stepElements(container);
  if (!steps.length) return null;
  const current = focusedStep(container, active);
  const index = current ? steps.indexOf(current) : -1;
  let target: HTMLElement | undefined;
  switch (where) {
    case 'first':
      target = steps[0];
      break;
    case 'last':
      target = steps[steps.length - 1];
      break;
    case 'next':
      target = index === -1 ? steps[0] : steps[Math.min(index + 1, steps.length - 1)];
      break;
    case 'previous':
      target = index === -1 ? steps[steps.length - 1] : steps[Math.max(index - 1, 0)];
      break;
  }
  if (!target) return null;
  target.focus({ preventScroll: true });
  target.scrollIntoView({ block: 'nearest', behavior: 'auto' });
  return target;
}

/** Focus a step by its id and bring it into view (e.g. the tool call a session waits on). */
export function focusStep(container: ParentNode, stepId: string): HTMLElement | null {
  const target = stepElements(container).find((element) => element.dataset.stepId === stepId) ?? null;
  if (!target) return null;
  target.focus({ preventScroll: true });
  target.scrollIntoView({ block: 'center', behavior: 'auto' });
  return target;
}
