import { applyEvent, createSessionState, type InterthoughtClient, type SessionState } from '@interthought/protocol';
import type { SessionUpdate } from '@interthought/protocol';

/**
 * One side of the compare view: a session followed live (`session.subscribe`), folded with the
 * protocol's reducer. The fold mutates one state in place; `version` says it changed, at most once
 * per frame, so a streaming replay re-renders the view at the screen's pace, not per token.
 */
export class CompareSide {
  readonly sessionId: string;
  /** Bumped after updates were folded; readers of `state` read it first. */
  version = $state(0);
  loaded = $state(false);
  error = $state<string | null>(null);
  deleted = $state(false);
  #state: SessionState = createSessionState();
  #scheduled = false;

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  /** The folded state; reading it tracks `version`. */
  get state(): SessionState {
    void this.version;
    return this.#state;
  }

  /** Follow the session; returns the function that stops. */
  follow(client: InterthoughtClient): () => void {
    return client.subscribe(this.sessionId, (update) => this.#receive(update), {
      onError: (error) => {
        this.error = error.message;
      },
    });
  }

  #receive(update: SessionUpdate): void {
    if (update.type === 'session.snapshot') {
      this.#state = createSessionState(update);
      this.loaded = true;
    } else {
      if (update.type === 'session.deleted') this.deleted = true;
      applyEvent(this.#state, update);
    }
    this.#changed();
  }

  #changed(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    requestAnimationFrame(() => {
      this.#scheduled = false;
      this.version++;
    });
  }
}

