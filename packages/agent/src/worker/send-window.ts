/** What the window needs of the connection: a WebSocket ping carrying `data`, which the server echoes in its pong. */
export type Probe = (data: string) => void;

/**
 * Bounds the frames this worker has sent and the server has not read yet, over all runs of one
 * connection (PROTOCOL.md Part II §A7).
 *
 * `flow { paused: true }` only stops what the worker sends after it reads it; whatever is in the
 * sockets' buffers by then still reaches the run's queue, and past `maxQueuedFramesPerRun` the
 * server fails the run (`FLOW_EXCEEDED`). On loopback those buffers hold megabytes, so a fast
 * agent could put thousands of frames in flight while the server was busy fanning out. Every
 * `limit / 4` frames the window sends a ping numbered with the frames sent so far: the server
 * answers a ping when it reads it, after every frame before it (and after sending any `flow` they
 * caused), so its pong says how many it has read. Runs hold their frames while `limit` are unread.
 */
export class SendWindow {
  readonly #limit: number;
  readonly #probeEvery: number;
  readonly #probe: Probe;
  readonly #onOpen: () => void;
  #sent = 0;
  #read = 0;
  #probedAt = 0;

  /** `onOpen` is told when the window, closed, has room again. */
  constructor(limit: number, probe: Probe, onOpen: () => void) {
    this.#limit = Math.max(4, limit);
    this.#probeEvery = Math.floor(this.#limit / 4);
    this.#probe = probe;
    this.#onOpen = onOpen;
  }

  /** Room for another frame: fewer than `limit` sent and not read yet. */
  get open(): boolean {
    return this.#sent - this.#read < this.#limit;
  }

  /** A frame went out. */
  sent(): void {
    this.#sent += 1;
    if (this.#sent - this.#probedAt < this.#probeEvery) return;
    this.#probedAt = this.#sent;
    this.#probe(String(this.#sent));
  }

  /** A pong: the server has read the frames up to the number its ping carried. */
  answered(data: Buffer): void {
    const read = Number(data.toString('latin1'));
    // A pong this window did not ask for (another ping's) says nothing.
    if (!Number.isSafeInteger(read) || read <= this.#read || read > this.#sent) return;
    const wasOpen = this.open;
    this.#read = read;
    if (!wasOpen && this.open) this.#onOpen();
  }
}
