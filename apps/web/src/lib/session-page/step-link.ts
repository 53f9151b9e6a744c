import type { ChainNavigation } from '$lib/chain/chain-navigation.js';

/** The address parameter that opens a session's page at one step (`/sessions/<id>?step=<stepId>`), as a Corrections row links it. */
export const STEP_PARAM = 'step';

/** The step an address names, if any. */
export function linkedStepOf(url: URL): string | undefined {
  return url.searchParams.get(STEP_PARAM) || undefined;
}

/**
 * Brings the step a link names into view once the chain is ready, with the keyboard focus on its
 * card (so j/k go on from there), and only once per step: a later snapshot or stream must not pull
 * the reader back. It stops following the newest step first, or the stream would scroll it away.
 */
export class StepLinkArrival {
  #revealed: string | undefined;

  constructor(
    private readonly navigation: ChainNavigation,
    private readonly stopFollowing: () => void,
  ) {}

  /** Call whenever the linked step or the chain's readiness changes. */
  follow(stepId: string | undefined, ready: boolean): void {
    if (!ready || stepId === undefined || stepId === this.#revealed) return;
    this.#revealed = stepId;
    this.stopFollowing();
    void this.navigation.reveal(stepId, { focus: true, block: 'center' });
  }
}
