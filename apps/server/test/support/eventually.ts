/**
 * Poll `check` until it gives something other than `undefined` or `false` (state only reachable by
 * asking: a process, a server, Redis), and resolve with it. Processes take real time: on a loaded
 * two-core machine a server started again after a crash can take seconds, so the default wait runs
 * to just under the 20 s test timeout, where the test's own failure is clearer.
 */
export async function eventually<T>(check: () => T | false | undefined | Promise<T | false | undefined>, what: string, timeoutMs = 15_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
