import { isActive, type SessionInfo } from '@interthought/protocol';
import type { SessionEngine } from '../sessions/session-engine.js';
import type { Peer, ReplyTo } from '../fanout/peer.js';
import { storedFrame, type Frame } from '../fanout/frame.js';
import { withRequestId } from '../fanout/answer.js';
import { SessionError, notFound } from '../session-error.js';
import { RUN_STARTING_OPS, RouteError, type CommandOp, type RoutedCommand, type SessionPlacement } from '../ports/session-placement.js';
import { createSession } from '../commands/create-session.js';
import type { CreateSessionInput } from '../session-service.js';
import type { HeldRequest, SessionFanout } from '../ports/session-fanout.js';

/** What a command carries besides its session (a correction, a decision, a message, a share link). */
export type CommandInput = unknown;

/** Runs a command on this process's engine (`SessionManager`'s one switch over the commands). */
export type ApplyCommand = (op: CommandOp, sessionId: string, reply: ReplyTo | undefined, input: CommandInput) => Promise<unknown>;

/** An answer that never comes (its batch could not be written) stops holding the requester's events after this long. */
const HOLD_LIMIT_MS = 10_000;
const RETRY_MS = 100;

/** The requester as the node that runs the command sees it: its id and quota. */
function routedPeer(reply: ReplyTo | undefined): RoutedCommand['peer'] {
  return reply === undefined ? { id: 'rest' } : { id: reply.peer.id, ...(reply.peer.quota === undefined ? {} : { quota: reply.peer.quota }) };
}

function asSessionError(error: RouteError): SessionError {
  const code = error.code === 'NOT_OWNER' || error.code === 'NO_ANSWER' ? 'INTERNAL' : error.code;
  return new SessionError(code, error.message);
}

/**
 * Commands where sessions are placed on one of several nodes (a cluster): a command runs here when
 * this node holds the session (or can take it), else it is routed to the node that does; a
 * session nothing runs any more is handed back. A single process needs none of this.
 */
export class PlacedCommands {
  /**
   * Commands of each session under way on this node, from their claim to their end. A session is
   * not let go under one: its lease would be released while the command, having claimed it, runs
   * the session here unfenced — and another node could then take the session and run a second
   * command against the state before the first (two answers to one question both accepted).
   */
  readonly #underWay = new Map<string, number>();
  /** Sessions a letting-go found busy: let go once their last command ends. */
  readonly #letGoLater = new Set<string>();

  constructor(
    private readonly placement: SessionPlacement,
    private readonly fanout: SessionFanout,
    private readonly engine: SessionEngine,
    private readonly apply: ApplyCommand,
    private readonly report: (context: string, error: unknown) => void,
  ) {}

  /** A session whose owner died: take it over (its log is folded and it is marked interrupted, as after a restart). */
  async takeOver(sessionId: string): Promise<void> {
    const claim = await this.placement.claim(sessionId, { takeover: true });
    if (!claim.here) return;
    const snapshot = await this.engine.snapshot(sessionId);
    if (snapshot === undefined || !isActive(snapshot.session.status)) await this.letGo(sessionId);
  }

  /** Nothing of the session runs here any more: once what it queued is written, hand it back and drop it from memory. */
  async letGo(sessionId: string): Promise<void> {
    if (!this.placement.handsBack || !this.placement.holds(sessionId)) return;
    // Its last events (a takeover's `interrupted`, a final status) are written while it is held.
    await this.engine.flushed();
    if (!this.placement.holds(sessionId)) return;
    // A command may have revived it meanwhile (a correction of a finished session).
    const snapshot = await this.engine.snapshot(sessionId);
    if (snapshot !== undefined && isActive(snapshot.session.status)) return;
    // Checked in the same synchronous stretch as the eviction, so no command slips in between.
    if (this.#underWay.has(sessionId)) {
      this.#letGoLater.add(sessionId);
      return;
    }
    this.engine.evict(sessionId, 'the session finished');
    try {
      await this.placement.release(sessionId);
    } catch (error) {
      this.report(`releasing the lease of session ${sessionId} failed`, error);
    }
  }

  /**
   * Run a command where the session is placed. The requester's events of the session are held until
   * its answer arrives, which then replaces the plain copy of the event it is (or precedes the events it caused).
   */
  async run(op: CommandOp, sessionId: string, reply: ReplyTo | undefined, input?: CommandInput): Promise<unknown> {
    if (typeof sessionId !== 'string') throw notFound(sessionId);
    return this.#whileUnderWay(sessionId, () => this.#run(op, sessionId, reply, input));
  }

  /** Run `command` of the session counted as under way here, and let the session go after it if a letting-go waited for it. */
  async #whileUnderWay<T>(sessionId: string, command: () => Promise<T>): Promise<T> {
    this.#underWay.set(sessionId, (this.#underWay.get(sessionId) ?? 0) + 1);
    try {
      return await command();
    } finally {
      const left = (this.#underWay.get(sessionId) ?? 1) - 1;
      if (left > 0) this.#underWay.set(sessionId, left);
      else {
        this.#underWay.delete(sessionId);
        if (this.#letGoLater.delete(sessionId)) queueMicrotask(() => void this.letGo(sessionId).catch((error: unknown) => this.report(`letting session ${sessionId} go failed`, error)));
      }
    }
  }

  async #run(op: CommandOp, sessionId: string, reply: ReplyTo | undefined, input?: CommandInput): Promise<unknown> {
    const held = this.fanout.hold(sessionId, reply);
    const deadline = Date.now() + this.placement.takeoverWaitMs;
    try {
      for (;;) {
        const placed = await this.#claim(sessionId, RUN_STARTING_OPS.has(op));
        if (placed.here) return await this.#runHere(op, sessionId, held.reply, input);
        if (placed.handOver === true && !(await this.#handOver(sessionId))) return await this.#runHere(op, sessionId, held.reply, input);
        const command: RoutedCommand = withRequestId({ op, sessionId, peer: routedPeer(reply), ...(input === undefined ? {} : { input }) }, reply?.requestId);
        try {
          // The requester's frames come back over the bus as text: parsed only if something reads them.
          return await this.placement.route(placed.nodeId, command, (text) => held.answered(storedFrame(text)));
        } catch (error) {
          if (!(error instanceof RouteError)) throw error;
          // The owner died or let the session go: once its hold is gone, this node takes it. Not
          // after NO_ANSWER: that owner got the command (it was resent to it) and may have run it.
          if (error.code === 'NOT_OWNER' && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
            continue;
          }
          throw asSessionError(error);
        }
      }
    } catch (error) {
      held.release();
      throw error;
    } finally {
      this.#releaseLater(held);
    }
  }

  #releaseLater(held: HeldRequest): void {
    setTimeout(() => held.release(), HOLD_LIMIT_MS).unref();
  }

  /**
   * Create the session on `nodeId` (a node that can run its agent): its `session.created` comes
   * back to the requester, who then follows the new session from seq 0 as a local creator does.
   * Undefined when that node is gone (the session is then created here).
   */
  async createElsewhere(nodeId: string, input: CreateSessionInput, reply: ReplyTo | undefined): Promise<SessionInfo | undefined> {
    const command: RoutedCommand = withRequestId({ op: 'create', sessionId: '', input, peer: routedPeer(reply) }, reply?.requestId);
    let info: SessionInfo;
    try {
      info = (await this.placement.route(nodeId, command, (text) => reply?.peer.send(storedFrame(text)))) as SessionInfo;
    } catch (error) {
      if (!(error instanceof RouteError)) throw error;
      if (error.code === 'NOT_OWNER') return undefined;
      throw asSessionError(error);
    }
    if (reply !== undefined) await this.fanout.subscribe(info.sessionId, { peer: reply.peer }, 0);
    return info;
  }

  async #claim(sessionId: string, startsRun: boolean) {
    try {
      return await this.placement.claim(sessionId, startsRun ? { startsRun } : undefined);
    } catch (error) {
      if (error instanceof SessionError && error.code === 'SESSION_NOT_FOUND') throw notFound(sessionId);
      throw error;
    }
  }

  /**
   * This node holds a session whose agent it cannot run (its worker left), and another node can:
   * once what it queued is written, the session is dropped and handed back for that node to take.
   * False when it still has a run here (it then stays).
   */
  async #handOver(sessionId: string): Promise<boolean> {
    const session = await this.engine.find(sessionId);
    if (session?.hasRun === true) return false;
    await this.engine.flushed();
    if (!this.placement.holds(sessionId)) return true;
    this.engine.evict(sessionId, 'a node with a worker for its agent runs it now');
    await this.placement.release(sessionId);
    return true;
  }

  /** Whether this node may run a command routed to it: it holds the session, or (for one that starts a run) takes it now. */
  async #mayServe(command: RoutedCommand): Promise<boolean> {
    if (!RUN_STARTING_OPS.has(command.op)) return this.placement.holds(command.sessionId);
    // Sent here because a worker for the session's agent is connected here, or because this node holds it.
    const placed = await this.#claim(command.sessionId, true);
    if (placed.here) return true;
    if (placed.handOver === true) return !(await this.#handOver(command.sessionId));
    return false;
  }

  /** A command routed here by the node of its requester. */
  async serveRouted(command: RoutedCommand, send: (frame: string) => void): Promise<unknown> {
    if (command.op === 'create') return this.#serveCreate(command, send);
    return this.#whileUnderWay(command.sessionId, () => this.#serveRouted(command, send));
  }

  async #serveRouted(command: RoutedCommand, send: (frame: string) => void): Promise<unknown> {
    if (!(await this.#mayServe(command))) throw new RouteError('NOT_OWNER', `This node does not own session ${command.sessionId}.`);
    // The outcome goes back after the answer: a status change's answer is its event, sent once written.
    let answered: () => void = () => undefined;
    const answeredOnce = new Promise<void>((resolve) => (answered = resolve));
    const forward = (frame: Frame): void => {
      send(frame.text);
      answered();
    };
    const peer: Peer = { id: command.peer.id, ...(command.peer.quota === undefined ? {} : { quota: command.peer.quota }), send: forward, sendLive: forward };
    const reply: ReplyTo = withRequestId({ peer }, command.requestId);
    const result = await this.#runHere(command.op as CommandOp, command.sessionId, reply, command.input);
    // Read-your-writes across nodes: the requester's node reads the shared store next (a snapshot,
    // the access facts), so the outcome goes back once the events the command caused are written.
    await this.engine.flushed();
    // A link made or revoked is answered by its result alone: no frame goes to the peer, so none is waited for.
    if (command.op === 'share' || command.op === 'unshare') return result;
    await Promise.race([answeredOnce, new Promise((resolve) => setTimeout(resolve, HOLD_LIMIT_MS).unref())]);
    return result;
  }

  /** A session created here for a requester on another node: it gets `session.created`, and follows the session from there. */
  async #serveCreate(command: RoutedCommand, send: (frame: string) => void): Promise<SessionInfo> {
    const forward = (frame: Frame): void => send(frame.text);
    const peer: Peer = { id: command.peer.id, ...(command.peer.quota === undefined ? {} : { quota: command.peer.quota }), send: forward, sendLive: forward };
    const info = await createSession(this.engine, command.input as CreateSessionInput, withRequestId({ peer }, command.requestId), () => undefined);
    // As for any routed command: its first events are in the store when the requester's node hears back.
    await this.engine.flushed();
    return info;
  }

  /** The command, run by this process's engine on a session placed here. */
  async #runHere(op: CommandOp, sessionId: string, reply: ReplyTo | undefined, input: CommandInput): Promise<unknown> {
    try {
      return await this.apply(op, sessionId, reply, input);
    } catch (error) {
      // A refused command may leave this node holding a session it does not run.
      const snapshot = await this.engine.snapshot(sessionId).catch(() => undefined);
      if (snapshot === undefined || !isActive(snapshot.session.status)) await this.letGo(sessionId);
      throw error;
    }
  }
}
