import type { SessionEvent, ServerMessage } from '../messages.js';
import { firstSeqOf } from '../reducer.js';
import { SESSION_EVENT_TRAITS, isKnownSessionEvent } from '../event-traits.js';
import type { SessionCreated, SessionDeletedEvent, SessionSnapshot } from '../session.js';
import type { InterthoughtError } from './interthought-error.js';
import { isUnknownSessionEvent } from './server-frame.js';

/**
 * What a subscriber receives, in order: a `session.snapshot` to (re)build its state from, or the
 * next session event. A snapshot always replaces everything before it; events continue from its `seq`.
 * `session.deleted` is the last update of a session.
 */
export type SessionUpdate = SessionSnapshot | SessionEvent;

/** Receives a subscribed session's updates. */
export type SessionUpdateListener = (update: SessionUpdate) => void;

/** Options of `InterthoughtClient.subscribe`. */
export interface SubscribeOptions {
  /**
   * Resume after this `seq`: the first updates are events `afterSeq + 1` … (or a snapshot, if the
   * server no longer keeps them). Without it, the first update is a snapshot.
   */
  afterSeq?: number;
  /**
   * Told when a subscription request fails: a server `error` such as `SESSION_NOT_FOUND` (the listener
   * is then removed), `RATE_LIMITED` or `INTERNAL` (the client asks again shortly), or `TIMEOUT`
   * (the listener stays; a reconnect subscribes again).
   */
  onError?: (error: InterthoughtError) => void;
}

/** What the feeds need from the connection. */
export interface FeedLink {
  isOpen(): boolean;
  /** Send `session.subscribe`; settles with its answer. */
  subscribe(sessionId: string, afterSeq: number | undefined): Promise<unknown>;
  /** Send `session.unsubscribe` if the connection is open, without waiting for the answer. */
  unsubscribe(sessionId: string): void;
  /** A listener threw: reported there, so it cannot stop delivery to the others. */
  listenerFailed(error: unknown): void;
}

interface Listener {
  readonly deliver: SessionUpdateListener;
  readonly onError: ((error: InterthoughtError) => void) | undefined;
  /** The `seq` of the last update it got; `null` while it waits for its starting snapshot. */
  cursor: number | null;
}

/** The updates of a session this client created, held until a listener attaches (created sessions are subscribed at once). */
class HeldUpdates implements Listener {
  readonly onError = undefined;
  cursor: number | null = 0;
  updates: SessionUpdate[];

  constructor(start: SessionSnapshot) {
    this.updates = [start];
  }

  readonly deliver = (update: SessionUpdate): void => {
    if (update.type === 'session.snapshot') this.updates = [update];
    else this.updates.push(update);
  };
}

interface Feed {
  readonly sessionId: string;
  readonly listeners: Set<Listener>;
  held: HeldUpdates | undefined;
  /** A whole-feed `session.subscribe` is in flight: gaps seen meanwhile are covered by its replay. */
  resyncing: boolean;
}

/** How long to wait before subscribing again after a passing refusal (`RATE_LIMITED`, `INTERNAL`). */
export const SUBSCRIBE_RETRY_MS = 500;

/** A created session's held updates are dropped beyond this many (the session is then unsubscribed). */
export const CREATED_BACKLOG_LIMIT = 5_000;

/**
 * The sessions a client follows and, per listener, the last `seq` it got: every event reaches each
 * listener exactly once, in order. Duplicates are dropped; a gap triggers a `session.subscribe` with
 * `afterSeq`; after a reconnect every session is subscribed again from where its listeners are.
 */
export class SessionFeeds {
  private readonly feeds = new Map<string, Feed>();

  constructor(private readonly link: FeedLink) {}

  /** The ids of the sessions followed. */
  sessionIds(): string[] {
    return [...this.feeds.keys()];
  }

  /** Follow a session this client just created: the server already subscribed it. */
  track(created: SessionCreated): void {
    const { session } = created;
    if (this.feeds.has(session.sessionId)) return;
    const held = new HeldUpdates({ type: 'session.snapshot', session, steps: [], chain: [], seq: 0 });
    this.feeds.set(session.sessionId, { sessionId: session.sessionId, listeners: new Set([held]), held, resyncing: false });
  }

  /** Add a listener; returns the function that removes it. */
  attach(sessionId: string, deliver: SessionUpdateListener, options: SubscribeOptions = {}): () => void {
    const listener: Listener = { deliver, onError: options.onError, cursor: options.afterSeq ?? null };
    const existing = this.feeds.get(sessionId);
    const feed = existing ?? { sessionId, listeners: new Set<Listener>(), held: undefined, resyncing: false };
    if (!existing) this.feeds.set(sessionId, feed);
    const held = feed.held;
    if (held) {
      // The first listener of a session this client created gets everything since its creation.
      feed.listeners.delete(held);
      feed.held = undefined;
      listener.cursor = held.cursor;
      feed.listeners.add(listener);
      for (const update of held.updates) if (feed.listeners.has(listener)) this.call(listener, update);
    } else {
      feed.listeners.add(listener);
      if (this.link.isOpen()) this.requestSubscribe(feed, options.afterSeq, listener);
    }
    return () => this.detach(feed, listener);
  }

  /** Route a server frame to the listeners of its session. */
  handle(frame: ServerMessage): void {
    // Every session event but the last (`session.deleted`, which takes the log with it) is folded alike.
    if (isKnownSessionEvent(frame)) return SESSION_EVENT_TRAITS[frame.type].logged ? this.applyEvent(frame) : this.applyDeleted(frame as SessionDeletedEvent);
    switch (frame.type) {
      case 'session.snapshot':
        return this.applySnapshot(frame);
      case 'session.subscribed': {
        const feed = this.feeds.get(frame.sessionId);
        if (feed) feed.resyncing = false;
        return;
      }
      case 'hello':
      case 'session.created':
      case 'session.unsubscribed':
      case 'correction.accepted':
      case 'message.accepted':
      case 'auth.refreshed':
      case 'session.shared':
      case 'session.unshared':
      case 'error':
      case 'sessions.watching':
      case 'sessions.unwatched':
      case 'sessions.changed':
      case 'sessions.removed':
        return;
      default: {
        // A session event of a newer server (see `isUnknownSessionEvent`): delivered like any event,
        // so cursors and reducers (which only advance `seq` for it) stay in step; consumers ignore it.
        const unknown: never = frame;
        if (isUnknownSessionEvent(unknown as { type: string })) this.applyEvent(unknown as SessionEvent);
      }
    }
  }

  /** The connection (re)opened: subscribe every followed session again, after its listeners' last `seq`. */
  resubscribeAll(): void {
    for (const feed of this.feeds.values()) {
      feed.resyncing = false;
      this.resync(feed);
    }
  }

  /**
   * An event covers seqs `firstSeqOf(event)`…`seq` (more than one for a coalesced delta). Covered
   * entirely by a listener's cursor, it is a duplicate and dropped. Overlapping the cursor only in
   * part (fromSeq ≤ cursor < seq) cannot happen with a correct server: live frames of a connection
   * come in order and replays are never coalesced. A delta's text cannot be split by seq, so such a
   * frame is treated like a gap: the feed subscribes again after the cursor and gets the events one by one.
   */
  private applyEvent(event: SessionEvent): void {
    const feed = this.feeds.get(event.sessionId);
    if (!feed || typeof event.seq !== 'number') return;
    const first = firstSeqOf(event);
    let behind = false;
    for (const listener of [...feed.listeners]) {
      if (listener.cursor === null || event.seq <= listener.cursor || !feed.listeners.has(listener)) continue;
      if (first === listener.cursor + 1) {
        listener.cursor = event.seq;
        this.call(listener, event);
      } else {
        behind = true;
      }
    }
    this.trimHeldUpdates(feed);
    if (behind) this.resync(feed);
  }

  /**
   * The session's last event: every listener not already past it gets it, even one behind (the
   * events in between went with the log), and the feed ends without a `session.unsubscribe`
   * (the server dropped the subscriptions) nor a re-subscribe after a reconnect.
   */
  private applyDeleted(event: SessionDeletedEvent): void {
    const feed = this.feeds.get(event.sessionId);
    if (!feed || typeof event.seq !== 'number') return;
    this.feeds.delete(feed.sessionId);
    for (const listener of [...feed.listeners]) {
      if (listener.cursor !== null && event.seq <= listener.cursor) continue;
      listener.cursor = event.seq;
      this.call(listener, event);
    }
    feed.listeners.clear();
  }

  private applySnapshot(snapshot: SessionSnapshot): void {
    const feed = this.feeds.get(snapshot.session?.sessionId);
    if (!feed || typeof snapshot.seq !== 'number') return;
    feed.resyncing = false;
    for (const listener of [...feed.listeners]) {
      // A listener already past this snapshot keeps its events; one behind (or waiting) starts over from it.
      if (listener.cursor !== null && listener.cursor >= snapshot.seq) continue;
      if (!feed.listeners.has(listener)) continue;
      listener.cursor = snapshot.seq;
      this.call(listener, snapshot);
    }
  }

  private resync(feed: Feed): void {
    if (feed.resyncing || !this.link.isOpen() || feed.listeners.size === 0) return;
    feed.resyncing = true;
    this.requestSubscribe(feed, this.resumeSeq(feed), undefined);
  }

  /** Where a whole-feed subscribe resumes: the lowest cursor, or nothing (a snapshot) if a listener waits for one. */
  private resumeSeq(feed: Feed): number | undefined {
    let lowest: number | undefined;
    for (const { cursor } of feed.listeners) {
      if (cursor === null) return undefined;
      lowest = lowest === undefined ? cursor : Math.min(lowest, cursor);
    }
    return lowest;
  }

  /** `for` is the listener the request is made for, or undefined when it is for the whole feed. */
  private requestSubscribe(feed: Feed, afterSeq: number | undefined, forListener: Listener | undefined): void {
    this.link.subscribe(feed.sessionId, afterSeq).then(
      () => undefined,
      (error: InterthoughtError) => this.subscribeFailed(feed, error, forListener),
    );
  }

  private subscribeFailed(feed: Feed, error: InterthoughtError, forListener: Listener | undefined): void {
    if (!forListener) feed.resyncing = false;
    if (this.feeds.get(feed.sessionId) !== feed) return;
    const targets = forListener ? (feed.listeners.has(forListener) ? [forListener] : []) : [...feed.listeners];
    switch (error.code) {
      case 'DISCONNECTED':
        return; // the next connection subscribes again
      case 'BAD_CURSOR':
        // The cursor is past the server's log (it lost events, or it is another server): start over from a snapshot.
        for (const listener of targets) listener.cursor = null;
        if (targets.length > 0 && this.link.isOpen()) this.requestSubscribe(feed, undefined, forListener);
        return;
      case 'TIMEOUT':
        for (const listener of targets) this.tell(listener, error);
        return;
      case 'RATE_LIMITED':
      case 'INTERNAL':
        // Passing conditions: tell, and ask again a little later (a feed left unsubscribed would go silent).
        for (const listener of targets) this.tell(listener, error);
        setTimeout(() => this.retry(feed, forListener), SUBSCRIBE_RETRY_MS);
        return;
      default:
        // The server refused (e.g. SESSION_NOT_FOUND, FORBIDDEN): these listeners are done.
        for (const listener of targets) {
          feed.listeners.delete(listener);
          this.tell(listener, error);
        }
        if (feed.listeners.size === 0 && this.feeds.get(feed.sessionId) === feed) this.feeds.delete(feed.sessionId);
    }
  }

  private retry(feed: Feed, forListener: Listener | undefined): void {
    if (this.feeds.get(feed.sessionId) !== feed || !this.link.isOpen()) return;
    if (!forListener) return this.resync(feed);
    if (feed.listeners.has(forListener)) this.requestSubscribe(feed, forListener.cursor ?? undefined, forListener);
  }

  private detach(feed: Feed, listener: Listener): void {
    if (!feed.listeners.delete(listener)) return;
    if (feed.listeners.size > 0 || this.feeds.get(feed.sessionId) !== feed) return;
    this.feeds.delete(feed.sessionId);
    this.link.unsubscribe(feed.sessionId);
  }

  /** Bound the memory a created-but-never-watched session takes: past the limit, stop following it. */
  private trimHeldUpdates(feed: Feed): void {
    const held = feed.held;
    if (!held || held.updates.length <= CREATED_BACKLOG_LIMIT) return;
    feed.held = undefined;
    this.detach(feed, held);
  }

  private call(listener: Listener, update: SessionUpdate): void {
    try {
      listener.deliver(update);
    } catch (error) {
      this.link.listenerFailed(error);
    }
  }

  private tell(listener: Listener, error: InterthoughtError): void {
    if (!listener.onError) return;
    try {
      listener.onError(error);
    } catch (thrown) {
      this.link.listenerFailed(thrown);
    }
  }
}
