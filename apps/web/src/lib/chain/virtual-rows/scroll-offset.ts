/** How far below the top of `scroller`'s scrolled content `element` begins (px), whatever the scroll position. */
export function scrollOffsetWithin(scroller: HTMLElement, element: HTMLElement): number {
  return element.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop;
}
