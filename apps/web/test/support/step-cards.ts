import { afterEach } from 'vitest';
import StepCard from '$lib/chain/StepCard.svelte';
import { mountInChain, type Harness } from './chain-harness.js';

/**
 * StepCards mounted in a chain harness, one at a time: `render` mounts the card of a step (the
 * previous one is unmounted by the next `render`, by `unmount`, or after the test).
 */
export function useStepCards() {
  let cleanup: (() => void) | undefined;
  const unmount = (): void => {
    cleanup?.();
    cleanup = undefined;
  };
  afterEach(unmount);
  const render = (harness: Harness, stepId: string, props: { readOnly?: boolean; superseded?: boolean } = {}) => {
    const view = harness.session.view(stepId)!;
    const mounted = mountInChain(StepCard, { view, ...props }, harness);
    cleanup = mounted.destroy;
    return { view, target: mounted.target, article: mounted.target.querySelector<HTMLElement>('article')! };
  };
  return { render, unmount };
}
