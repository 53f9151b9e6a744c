/**
 * Which step is the keyboard's current one. Its card is the chain's one tab stop (a roving
 * tabindex, see keyboard/card-tab-order.ts); j/k, a click or a Tab into a card make that step
 * current. Kept as state, not read from the DOM: a long chain draws only the rows near the
 * viewport, so the current step's card comes and goes while the step stays current.
 */
export class StepCursor {
  #current = $state<string | null>(null);
  /** The cards drawn now, by step id (not reactive: only `focus` reads it). */
  readonly #cards = new Map<string, HTMLElement>();
  /** A step the focus was sent to before its card was drawn (the step a correction makes). */
  #pending: string | null = null;

  /** The current step's id, or null before any step was current (the first card is the stop then). */
  get current(): string | null {
    return this.#current;
  }

  set(stepId: string): void {
    if (this.#current !== stepId) this.#current = stepId;
  }

  /**
   * A step's card is drawn; returns what to call when it goes. A card the focus was sent to
   * takes it now, unless the user put the focus somewhere else meanwhile.
   */
  register(stepId: string, card: HTMLElement): () => void {
    this.#cards.set(stepId, card);
    if (this.#pending === stepId) {
      this.#pending = null;
      if (focusIsFree()) focusCard(card);
    }
    return () => {
      if (this.#cards.get(stepId) === card) this.#cards.delete(stepId);
    };
  }

  /** Make the step current and move the focus to its card: now if it is drawn, else as soon as it is. */
  focus(stepId: string): void {
    this.set(stepId);
    const card = this.#cards.get(stepId);
    if (card?.isConnected) {
      this.#pending = null;
      focusCard(card);
    } else {
      this.#pending = stepId;
    }
  }
}

/** Whether nothing holds the focus (it fell to the page when what held it went away). */
function focusIsFree(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || !active.isConnected;
}

function focusCard(card: HTMLElement): void {
  card.focus({ preventScroll: true });
  card.scrollIntoView({ block: 'nearest' });
}
