/** Schedules a callback for the next frame and returns a function that cancels it. */
export type FrameScheduler = (callback: () => void) => () => void;

/** The browser's frame clock; a timer where there is none (tests, background tabs keep their own pace). */
export const animationFrameScheduler: FrameScheduler = (callback) => {
  if (typeof requestAnimationFrame === 'function') {
    const handle = requestAnimationFrame(() => callback());
    return () => cancelAnimationFrame(handle);
  }
  const handle = setTimeout(callback, 16);
  return () => clearTimeout(handle);
};
