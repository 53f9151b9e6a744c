import type { StoreHealth } from '@interthought/protocol';

export type { StoreHealth };

/** A store that can say how it is doing (one over the network: its round trip and pool). */
export interface StoreHealthProbe {
  storeHealth(): Promise<StoreHealth>;
}

/** The store's probe, when it has one. */
export function storeHealthProbeOf(store: object | undefined): StoreHealthProbe | undefined {
  return store !== undefined && typeof (store as Partial<StoreHealthProbe>).storeHealth === 'function' ? (store as StoreHealthProbe) : undefined;
}
