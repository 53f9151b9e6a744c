import { flushSync, mount, unmount, type Component } from 'svelte';
import Provided from './Provided.svelte';

export interface Mounted {
  target: HTMLElement;
  destroy: () => void;
}

/**
 * Mount a component below a wrapper that first runs `provide` (the `provide…()` functions of the
 * contexts it reads): `createContext` keys are private, so a context can only be given by a parent.
 */
export function mountProvided<Props extends Record<string, unknown>>(component: Component<Props>, props: Props, provide: () => void): Mounted {
  const target = document.createElement('div');
  document.body.appendChild(target);
  const instance = mount(Provided<Props>, { target, props: { provide, component, props } });
  flushSync();
  return {
    target,
    destroy: () => {
      unmount(instance);
      target.remove();
    },
  };
}
