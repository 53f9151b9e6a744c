import { describe, expect, it } from 'vitest';
import { AutoScroll } from '$lib/chain/auto-scroll.svelte.js';

/** A scroll container with a settable geometry (happy-dom does no layout). */
function scroller(geometry: { scrollHeight: number; clientHeight: number }) {
  const element = document.createElement('div');
  let top = 0;
  Object.defineProperty(element, 'scrollHeight', { get: () => geometry.scrollHeight });
  Object.defineProperty(element, 'clientHeight', { get: () => geometry.clientHeight });
  Object.defineProperty(element, 'scrollTop', { get: () => top, set: (value: number) => (top = value) });
  element.scrollTo = ((options: ScrollToOptions) => {
    top = Math.max(0, Math.min(options.top ?? top, geometry.scrollHeight - geometry.clientHeight));
  }) as typeof element.scrollTo;
  const userScrollsTo = (value: number) => {
    // The user drags the scrollbar: a pointer down on the scroller, then the scroll.
    element.dispatchEvent(new Event('pointerdown'));
    top = value;
    element.dispatchEvent(new Event('scroll'));
  };
  /** The page moves the position itself (a virtualized list re-measuring rows above the viewport). */
  const pageScrollsTo = (value: number) => {
    top = value;
    element.dispatchEvent(new Event('scroll'));
  };
  return { element, userScrollsTo, pageScrollsTo, top: () => top };
}

describe('AutoScroll', () => {
  it('keeps the newest content in view while following', () => {
    const geometry = { scrollHeight: 2000, clientHeight: 600 };
    const { element, top } = scroller(geometry);
    const auto = new AutoScroll();
    const detach = auto.attach(element, document.createElement('div'));
    auto.contentChanged();
    expect(top()).toBe(1400);
    geometry.scrollHeight = 2300;
    auto.contentChanged();
    expect(top()).toBe(1700);
    expect(auto.showJump).toBe(false);
    detach();
  });

  it('stops following when the user scrolls up, and offers "jump to latest"', () => {
    const geometry = { scrollHeight: 2000, clientHeight: 600 };
    const { element, userScrollsTo, top } = scroller(geometry);
    const auto = new AutoScroll();
    const detach = auto.attach(element, document.createElement('div'));
    auto.contentChanged();
    userScrollsTo(900);
    expect(auto.following).toBe(false);
    geometry.scrollHeight = 2600;
    auto.contentChanged();
    expect(top()).toBe(900);
    expect(auto.showJump).toBe(true);

    auto.jumpToLatest();
    expect(auto.following).toBe(true);
    expect(top()).toBe(2000);
    detach();
  });

  it('keeps following when the page itself moves the position up (rows above re-measured)', () => {
    const geometry = { scrollHeight: 2000, clientHeight: 600 };
    const { element, pageScrollsTo, top } = scroller(geometry);
    const auto = new AutoScroll();
    const detach = auto.attach(element, document.createElement('div'));
    auto.contentChanged();
    pageScrollsTo(1100);
    expect(auto.following).toBe(true);
    geometry.scrollHeight = 2100;
    auto.contentChanged();
    expect(top()).toBe(1500);
    detach();
  });

  it('follows again once the user scrolls back to the bottom', () => {
    const geometry = { scrollHeight: 2000, clientHeight: 600 };
    const { element, userScrollsTo } = scroller(geometry);
    const auto = new AutoScroll();
    const detach = auto.attach(element, document.createElement('div'));
    auto.contentChanged();
    userScrollsTo(500);
    expect(auto.following).toBe(false);
    userScrollsTo(1390);
    expect(auto.following).toBe(true);
    expect(auto.showJump).toBe(false);
    detach();
  });

  it('never offers to jump when everything fits on screen', () => {
    const { element } = scroller({ scrollHeight: 500, clientHeight: 600 });
    const auto = new AutoScroll();
    const detach = auto.attach(element, document.createElement('div'));
    auto.stopFollowing();
    auto.contentChanged();
    expect(auto.showJump).toBe(false);
    detach();
  });
});

describe('AutoScroll while correcting', () => {
  it('does not pull an open editor out of view as new content streams in', () => {
    const geometry = { scrollHeight: 2000, clientHeight: 600 };
    const { element, top } = scroller(geometry);
    const content = document.createElement('div');
    const textarea = document.createElement('textarea');
    content.appendChild(textarea);
    document.body.appendChild(content);
    const auto = new AutoScroll();
    const detach = auto.attach(element, content);
    auto.contentChanged();
    expect(top()).toBe(1400);
    textarea.focus();
    geometry.scrollHeight = 2400;
    auto.contentChanged();
    expect(top()).toBe(1400);
    textarea.blur();
    auto.contentChanged();
    expect(top()).toBe(1800);
    detach();
    content.remove();
  });
});
