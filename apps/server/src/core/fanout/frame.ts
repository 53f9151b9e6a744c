import type { ServerMessage, SessionEvent } from '@interthought/protocol';

/**
 * A server message on its way to peers: the typed message and its serialisation, each made at most
 * once, on first read, and then kept. One frame goes to every subscriber of an event, so they all
 * get the same string; listeners inside the server read `message` and never parse.
 */
export interface Frame {
  /** The message (parsed on first read when the frame came as text, then kept). */
  readonly message: ServerMessage;
  /** What goes on the wire (serialised on first read when the frame was made from a message, then kept). */
  readonly text: string;
  /**
   * True for a session event as its live stream sends it: the plain copy every subscriber gets.
   * A transport counts such frames toward a slow reader's limit and may coalesce its deltas. An
   * answer, an opening, a replayed event or a requester's copy is not live: a bounded burst.
   */
  readonly live: boolean;
  /** `message` as the session event it is, when `live` (parsing a stored frame on first read); else undefined. */
  readonly event: SessionEvent | undefined;
}

class CachedFrame implements Frame {
  #message: ServerMessage | undefined;
  #text: string | undefined;

  constructor(
    message: ServerMessage | undefined,
    text: string | undefined,
    readonly live: boolean,
  ) {
    this.#message = message;
    this.#text = text;
  }

  get message(): ServerMessage {
    return (this.#message ??= JSON.parse(this.#text!) as ServerMessage);
  }

  get text(): string {
    return (this.#text ??= JSON.stringify(this.#message));
  }

  get event(): SessionEvent | undefined {
    return this.live ? (this.message as SessionEvent) : undefined;
  }

  /** The same message and text (as far as either is made), not live. */
  notLive(): Frame {
    return this.live ? new CachedFrame(this.#message, this.#text, false) : this;
  }
}

/** A frame of a message the server built: an answer, an opening, a list change. Serialised on first `text`. */
export function frameOf(message: ServerMessage): Frame {
  return new CachedFrame(message, undefined, false);
}

/**
 * The same, serialised at once: for a message that shares parts with state that moves on before
 * it is sent (a snapshot waiting for the events it covers to be written).
 */
export function frameNow(message: ServerMessage): Frame {
  const frame = new CachedFrame(message, undefined, false);
  void frame.text;
  return frame;
}

/** The plain copy of a session event as its live stream sends it; `text`, when the store's serialisation of it is at hand. */
export function liveEventFrame(event: SessionEvent, text?: string): Frame {
  return new CachedFrame(event, text, true);
}

/** A frame read as text (a store, Redis, the node bus): parsed on first `message`, unless `message` is given. */
export function storedFrame(text: string, message?: ServerMessage): Frame {
  return new CachedFrame(message, text, false);
}

/** A stored session event sent as part of its live stream (a channel's batch, a gap filled from the log): parsed on first read. */
export function storedLiveEventFrame(text: string): Frame {
  return new CachedFrame(undefined, text, true);
}

/** `frame` as a direct answer rather than part of the live stream: its message and text are shared, not made again. */
export function asAnswer(frame: Frame): Frame {
  if (!frame.live) return frame;
  return frame instanceof CachedFrame ? frame.notLive() : storedFrame(frame.text, frame.message);
}
