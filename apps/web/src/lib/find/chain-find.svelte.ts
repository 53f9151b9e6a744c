import type { ChainNavigation } from '$lib/chain/chain-navigation.js';
import type { SessionView } from '$lib/chain/session-view.svelte.js';
import { clearHits, paintHits, rangeInView, scrollRangeIntoView } from './card-highlights.js';
import { FindIndex, type HitRef } from './find-index.js';
import { searchOrder, type SearchEntry } from './search-order.js';
import { createMatcher } from './text-matcher.js';

/**
 * A jump checks its hit for this many frames at most (about a second), until it stayed in view for
 * `STEADY_FRAMES` in a row: rows drawn for the first time near it (their heights estimated until
 * then) may push it away a few frames after the scroll.
 */
const SETTLE_FRAMES = 60;
const STEADY_FRAMES = 10;

const nextFrame = (): Promise<void> => new Promise((resolve) => (typeof requestAnimationFrame === 'undefined' ? setTimeout(resolve, 16) : requestAnimationFrame(() => resolve())));

/** What the find needs of the page once its bar is drawn: a way to reveal a step, and the chain's element to paint in. */
export interface FindSurface {
  navigation: ChainNavigation;
  container: () => HTMLElement | undefined;
  /** How far down the sticky header (and the find bar) covers the scroller, in px from the viewport top. */
  coveredTop: () => number;
}

/**
 * Find in the chain: the query, the current hit and its count, over the session's state rather
 * than the DOM, so a step that is not drawn (folded, superseded, far off in a virtualized list)
 * is found all the same. The index keeps a count per step; the page tells this class when the
 * chain's shape changed (`syncOrder`) and which steps a flush changed (`stepsChanged`).
 */
export class ChainFind {
  #open = $state(false);
  #query = $state('');
  #matchCase = $state(false);
  #current = $state.raw<HitRef | null>(null);
  #total = $state(0);
  #number = $state(0);
  readonly index: FindIndex;
  /** Where the current hit was in the order, for when its step leaves it (a correction). */
  #lastPosition = 0;
  #returnFocus: HTMLElement | null = null;
  /** The step the user was at when the bar opened: the first hit is looked for from there. */
  #anchorStepId: string | undefined;
  #surface: FindSurface | null = null;
  #paintFrame = 0;

  constructor(readonly session: SessionView) {
    this.index = new FindIndex((stepId) => session.state.steps.get(stepId));
  }

  get open(): boolean {
    return this.#open;
  }

  get query(): string {
    return this.#query;
  }

  get matchCase(): boolean {
    return this.#matchCase;
  }

  get current(): HitRef | null {
    return this.#current;
  }

  /** How many hits the chain holds now. */
  get total(): number {
    return this.#total;
  }

  /** The current hit's number, 1-based (0: none). */
  get number(): number {
    return this.#number;
  }

  /** Searching: the bar is open with something typed. */
  get active(): boolean {
    return this.#open && this.#query !== '';
  }

  /** The search entry of the current hit's step (superseded, in a sub-agent). */
  get currentEntry(): SearchEntry | undefined {
    void this.#number;
    const current = this.#current;
    return current ? this.index.entryOf(current.stepId) : undefined;
  }

  /** The bar is drawn: find can reveal and paint from now on. Returns the detach. */
  attach(surface: FindSurface): () => void {
    this.#surface = surface;
    // Opened again with the last query: its hits show at once.
    if (this.active) this.schedulePaint();
    return () => {
      if (this.#surface === surface) this.#surface = null;
      clearHits();
    };
  }

  /** Open the bar; `returnFocus` gets the focus back when it closes, `anchorStepId` is where the first hit is looked for. */
  show(returnFocus: Element | null, anchorStepId?: string): void {
    if (this.#open) return;
    this.#returnFocus = returnFocus instanceof HTMLElement ? returnFocus : null;
    this.#anchorStepId = anchorStepId;
    this.#open = true;
    // Opened again with the last query: its hits are counted afresh, from where the user is now.
    if (this.#query !== '') this.#rematch(true);
  }

  /** Close the bar, clear the highlights, and give the focus back to where it was (if it is still on the page). */
  close(): void {
    this.#open = false;
    this.index.setMatcher(null);
    this.index.setOrder([]);
    this.#current = null;
    this.#total = 0;
    this.#number = 0;
    clearHits();
    const target = this.#returnFocus;
    this.#returnFocus = null;
    if (target?.isConnected) target.focus({ preventScroll: true });
  }

  setQuery(query: string): void {
    if (query === this.#query) return;
    this.#query = query;
    this.#rematch(true);
  }

  setMatchCase(matchCase: boolean): void {
    if (matchCase === this.#matchCase) return;
    this.#matchCase = matchCase;
    this.#rematch(true);
  }

  /** The next hit (wrapping at the end), revealed and painted. */
  next(): void {
    this.#move(1);
  }

  previous(): void {
    this.#move(-1);
  }

  /** The chain's shape changed (the page reads the layouts reactively and calls this). */
  syncOrder(): void {
    if (!this.active) return;
    this.index.setOrder(this.#orderNow());
    this.#refresh();
  }

  #orderNow(): SearchEntry[] {
    return searchOrder(this.session.layout, (scope) => this.session.subagent(scope)?.layout);
  }

  /** A flush changed these steps' fields ('all': a snapshot). */
  stepsChanged(stepIds: ReadonlySet<string> | 'all'): void {
    if (!this.active) return;
    if (stepIds === 'all') this.index.recountAll();
    else this.index.update(stepIds);
    this.#refresh();
  }

  /** Paint the hits of the cards drawn now, once per frame at most (cards mounted, redrawn, scrolled to). */
  schedulePaint(): void {
    if (this.#paintFrame || typeof requestAnimationFrame === 'undefined') return;
    this.#paintFrame = requestAnimationFrame(() => {
      this.#paintFrame = 0;
      this.paint();
    });
  }

  /** Paint now; returns the current hit's range when its card is drawn. */
  paint(): Range | null {
    const container = this.#surface?.container();
    const matcher = this.index.matcher;
    if (!container || !matcher || !this.#open) {
      clearHits();
      return null;
    }
    return paintHits({ container, matcher, hasHits: (stepId) => this.index.countIn(stepId) > 0, current: this.#current });
  }

  #rematch(jump: boolean): void {
    const matcher = this.#open ? createMatcher(this.#query, { matchCase: this.#matchCase }) : null;
    this.index.setMatcher(matcher);
    // The order is kept only while searching: the first query after opening takes it now.
    if (matcher && this.index.order.length === 0) this.index.setOrder(this.#orderNow());
    // A changed query looks from where the user is: the current hit's step, else the step they were at when the bar opened.
    const from = this.#current?.stepId ?? this.#anchorStepId;
    const position = from === undefined ? undefined : this.index.positionOf(from);
    if (position !== undefined) this.#lastPosition = position;
    this.#current = null;
    this.#refresh();
    if (jump) void this.#reveal();
    else this.schedulePaint();
  }

  #move(direction: 1 | -1): void {
    if (!this.active) return;
    const next = this.index.step(this.#current, direction);
    if (!next) return;
    this.#current = next;
    this.#refresh();
    void this.#reveal();
  }

  /** Counts changed: the current hit stays on its step where it can, and the numbers follow. */
  #refresh(): void {
    const current = this.index.settle(this.#current, this.#lastPosition);
    if (current?.stepId !== this.#current?.stepId || current?.ordinal !== this.#current?.ordinal) this.#current = current;
    if (current) this.#lastPosition = this.index.positionOf(current.stepId) ?? this.#lastPosition;
    this.#total = this.index.total;
    this.#number = current ? this.index.numberOf(current) : 0;
    this.schedulePaint();
  }

  /**
   * Bring the current hit's card on screen, paint, and make sure the hit itself is visible: rows
   * drawn around it for the first time may change their heights (estimated until drawn) and move
   * it, so it is checked again for a few frames until it stays put.
   */
  async #reveal(): Promise<void> {
    const hit = this.#current;
    const surface = this.#surface;
    if (!hit || !surface) return;
    const card = await surface.navigation.reveal(hit.stepId, { block: 'center' });
    let steady = 0;
    for (let frame = 0; frame < SETTLE_FRAMES && steady < STEADY_FRAMES && card && this.#current === hit; frame++) {
      const range = this.paint();
      if (range && !rangeInView(range, surface.coveredTop())) {
        scrollRangeIntoView(range);
        steady = 0;
      } else {
        steady++;
      }
      await nextFrame();
    }
  }
}
