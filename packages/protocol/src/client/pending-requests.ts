import type { ServerMessage } from '../messages.js';
import { InterthoughtError } from './interthought-error.js';

/** A request waiting for its answer. */
export interface PendingRequest {
  readonly id: string;
  /** The serialised frame, sent once the connection is open. */
  readonly frame: string;
  /** The frame types that answer it (besides `error`). */
  readonly accepts: readonly string[];
  /** Whether the frame went out on the current connection (if it drops, the outcome is unknown). */
  sent: boolean;
  /** Runs synchronously when the answer arrives, before any later frame is handled. */
  readonly onAnswer: ((answer: ServerMessage) => void) | undefined;
  readonly resolve: (answer: ServerMessage) => void;
  readonly reject: (error: InterthoughtError) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

/** The requests in flight, keyed by their id, and their timeouts. */
export class PendingRequests {
  private readonly byId = new Map<string, PendingRequest>();

  get size(): number {
    return this.byId.size;
  }

  add(request: PendingRequest): void {
    this.byId.set(request.id, request);
  }

  /** The requests not sent yet, in the order they were made. */
  unsent(): PendingRequest[] {
    return [...this.byId.values()].filter((request) => !request.sent);
  }

  /**
   * Settle the request a frame answers, if any. An `error` frame rejects it; a frame of one of its
   * answer types resolves it; any other frame carrying its id is not its answer and is left alone.
   */
  settle(frame: ServerMessage): void {
    const requestId = 'requestId' in frame ? frame.requestId : undefined;
    if (typeof requestId !== 'string') return;
    const request = this.byId.get(requestId);
    if (!request) return;
    if (frame.type === 'error') {
      this.finish(request);
      request.reject(InterthoughtError.fromFrame(frame));
    } else if (request.accepts.includes(frame.type)) {
      this.finish(request);
      request.onAnswer?.(frame);
      request.resolve(frame);
    }
  }

  /** Reject a request (its timeout ran out). */
  fail(id: string, error: InterthoughtError): void {
    const request = this.byId.get(id);
    if (!request) return;
    this.finish(request);
    request.reject(error);
  }

  /** Reject every request already sent: the connection carrying them dropped before their answers. */
  failSent(error: InterthoughtError): void {
    for (const request of [...this.byId.values()]) if (request.sent) this.fail(request.id, error);
  }

  /** Reject every request, sent or not. */
  failAll(error: InterthoughtError): void {
    for (const request of [...this.byId.values()]) this.fail(request.id, error);
  }

  private finish(request: PendingRequest): void {
    clearTimeout(request.timer);
    this.byId.delete(request.id);
  }
}
