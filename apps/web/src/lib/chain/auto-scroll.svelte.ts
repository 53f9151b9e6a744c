import { isTypingTarget } from '$lib/keyboard/index.js';

/** How close to the bottom (px) still counts as "at the latest step". */
const NEAR_BOTTOM_PX = 72;
/** How long after the user's own input (wheel, touch, keys, the scrollbar) a scroll up counts as theirs (ms). */
const USER_SCROLL_WINDOW_MS = 800;
/** What the user does to scroll a page; a scroll with none of these just before it is the page's own. */
const USER_SCROLL_INPUTS = ['wheel', 'touchstart', 'touchmove', 'keydown', 'pointerdown'] as const;

/**
 * Keeps a scroll container pinned to the newest content while the agent streams, until the
 * user scrolls up to read; then `following` turns false (the page shows "jump to latest")
 * until they scroll back down or jump.
 */
export class AutoScroll {
  #following = $state(true);
  /** Whether newer content is out of view below (what "jump to latest" is for). */
  #awayFromBottom = $state(false);
  #container: HTMLElement | null = null;
  #content: HTMLElement | null = null;
  #lastTop = 0;
  /**
   * When the user last did something that scrolls. A virtualized list moves the scroll position
   * itself (a row above the viewport measured shorter than its estimate): only a scroll up the
   * user made stops following.
   */
  #userInputAt = Number.NEGATIVE_INFINITY;
  /** Looked up once: following asks on every frame of a stream. */
  #reducedMotion: MediaQueryList | null = null;

  get following(): boolean {
    return this.#following;
  }

  get awayFromBottom(): boolean {
    return this.#awayFromBottom;
  }

  /** How to reach the end without animation when something better than a plain scroll knows (a virtualized list); false: it could not. */
  #toEnd: ((container: HTMLElement) => boolean) | undefined;

  /** Watch a scroll container and the content inside it; returns the cleanup. */
  attach(container: HTMLElement, content: HTMLElement, toEnd?: (container: HTMLElement) => boolean): () => void {
    this.#container = container;
    this.#toEnd = toEnd;
    this.#content = content;
    this.#lastTop = container.scrollTop;
    const onScroll = () => this.#onScroll();
    const onWheel = (event: WheelEvent) => {
      // A wheel turn upwards is intent even before the position changes (content may be growing).
      if (event.deltaY < 0 && this.#distanceFromBottom() > 1) this.#following = false;
    };
    const onInput = () => (this.#userInputAt = performance.now());
    container.addEventListener('scroll', onScroll, { passive: true });
    container.addEventListener('wheel', onWheel, { passive: true });
    for (const type of USER_SCROLL_INPUTS) container.addEventListener(type, onInput, { passive: true });
    const observer = typeof ResizeObserver === 'function' ? new ResizeObserver(() => this.contentChanged()) : null;
    observer?.observe(content);
    return () => {
      container.removeEventListener('scroll', onScroll);
      container.removeEventListener('wheel', onWheel);
      for (const type of USER_SCROLL_INPUTS) container.removeEventListener(type, onInput);
      observer?.disconnect();
      this.#container = null;
      this.#content = null;
    };
  }

  /** Show the "jump to latest" button: the user stopped following and newer content is out of view. */
  get showJump(): boolean {
    return !this.#following && this.#awayFromBottom;
  }

  /** The content grew or changed: follow it if the user has not scrolled away. */
  contentChanged(): void {
    // Someone writing a correction keeps their place: the stream must not pull the editor away.
    if (this.#following && !this.#typingInContent()) this.#toBottom('auto');
    this.#awayFromBottom = this.#distanceFromBottom() > NEAR_BOTTOM_PX;
  }

  /** The user went elsewhere (to the top): stay where they are until they come back down or jump. */
  stopFollowing(): void {
    this.#following = false;
  }

  /** Go to the newest content and keep following it. */
  jumpToLatest(): void {
    this.#following = true;
    this.#toBottom('smooth');
  }

  #typingInContent(): boolean {
    const active = typeof document === 'undefined' ? null : document.activeElement;
    return active !== null && this.#content !== null && this.#content.contains(active) && isTypingTarget(active);
  }

  #distanceFromBottom(): number {
    const c = this.#container;
    return c ? c.scrollHeight - c.scrollTop - c.clientHeight : 0;
  }

  #onScroll(): void {
    const c = this.#container;
    if (!c) return;
    const movedUp = c.scrollTop < this.#lastTop - 2;
    this.#lastTop = c.scrollTop;
    this.#awayFromBottom = this.#distanceFromBottom() > NEAR_BOTTOM_PX;
    if (!this.#awayFromBottom) this.#following = true;
    else if (movedUp && performance.now() - this.#userInputAt < USER_SCROLL_WINDOW_MS) this.#following = false;
  }

  #toBottom(behavior: ScrollBehavior): void {
    const c = this.#container;
    if (!c) return;
    if (this.#reducedMotion === null && typeof matchMedia === 'function') this.#reducedMotion = matchMedia('(prefers-reduced-motion: reduce)');
    const reduce = this.#reducedMotion?.matches === true;
    if ((reduce || behavior === 'auto') && this.#toEnd?.(c)) return;
    c.scrollTo({ top: c.scrollHeight, behavior: reduce ? 'auto' : behavior });
    this.#lastTop = c.scrollTop;
  }
}
