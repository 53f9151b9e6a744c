import type { LoggedSessionEvent, SessionInfo, SessionOptions, SessionState } from '@interthought/protocol';
import type { SessionEngine } from '../sessions/session-engine.js';
import type { LiveSession } from '../sessions/live-session.js';
import type { Peer, ReplyTo } from '../fanout/peer.js';
import { answer } from '../fanout/answer.js';
import { stateBeforeFirstEvent } from '../persistence/session-loader.js';
import { importedSession, writeImport, type ParsedImport } from '../transfer/session-import.js';
import type { CreateSessionInput, ForkInput, Actor } from '../session-service.js';
import { forkCopy } from '../subagents/scope-copies.js';
import { forkSetup, replayPlan, startReplay } from './replay-fork.js';
import { checkTask } from './session-input.js';
import { agentAndOptions } from './session-setup.js';
import { inOneTurn } from './in-one-turn.js';
import { SessionError } from '../session-error.js';

/** How the requester of a new session follows it from seq 0, attached in the turn that creates it (settles once it follows). */
export type AttachCreator = (session: LiveSession, peer: Peer) => Promise<void> | undefined;

/**
 * Store the session's record, then in one turn: tell the list, answer `session.created`, attach the
 * requester from seq 0, and append the first events. Nothing can come between the answer and them.
 */
async function openSession(
  engine: SessionEngine,
  info: SessionInfo,
  options: SessionOptions,
  reply: ReplyTo | undefined,
  attach: AttachCreator,
  firstEvents: (session: LiveSession) => void,
): Promise<LiveSession> {
  try {
    await engine.store.createSession({ info, options, lastSeq: 0 });
  } catch (error) {
    // Two creations of one chosen id (an AG-UI thread's first runs racing): the second is told why, not an internal error.
    if ((await engine.store.getSession(info.sessionId)) !== undefined) {
      throw new SessionError('INVALID_STATE', `A session "${info.sessionId}" exists already: send to it instead of creating it.`);
    }
    throw error;
  }
  const { session, attached } = inOneTurn(() => {
    engine.hooks.summaryStored(info);
    const created = engine.adopt(stateBeforeFirstEvent(info), options);
    let following: Promise<void> | undefined;
    if (reply !== undefined) {
      answer(reply, { type: 'session.created', session: { ...info } });
      following = attach(created, reply.peer);
    }
    firstEvents(created);
    return { session: created, attached: following };
  });
  await attached;
  return session;
}

/** `session.create`: a new session, running its agent from a later tick. */
export async function createSession(engine: SessionEngine, input: CreateSessionInput, reply: ReplyTo | undefined, attach: AttachCreator): Promise<SessionInfo> {
  await engine.open();
  const task = checkTask(input.task);
  const agentName = input.agent ?? engine.defaultAgentName;
  const { agent, options, model } = agentAndOptions(engine, agentName, input.options);
  engine.checkCapacity(input.quota);
  if (input.sessionId !== undefined && (await engine.find(input.sessionId)) !== undefined) {
    throw new SessionError('INVALID_STATE', `A session "${input.sessionId}" exists already: send to it instead of creating it.`);
  }
  const info: SessionInfo = { sessionId: input.sessionId ?? engine.newId(), task, agent: agentName, status: 'running', revision: 0, createdAt: engine.now().toISOString() };
  if (model !== undefined) info.model = model;
  if (input.ownedBy !== undefined) info.owner = { id: input.ownedBy.id, name: input.ownedBy.name };
  await openSession(engine, info, options, reply, attach, (created) => {
    created.countAgainst(input.quota?.key);
    created.setStatus('running');
    engine.startRun(created, agent);
  });
  // The session as created, as `session.created` said it: a fast run may have ended by now, whatever the store's speed.
  return { ...info };
}

/**
 * `session.fork`: a new session whose chain is a copy of the source's path to `stepId` (§20.4),
 * from a source state the caller read (from memory, or the shared store in a cluster). It waits
 * `idle`, or with `run: true` runs at once on the agent and options it names (§26.5).
 */
export async function forkSession(
  engine: SessionEngine,
  source: { state: SessionState; options: SessionOptions },
  input: ForkInput,
  reply: ReplyTo | undefined,
  attach: AttachCreator,
): Promise<SessionInfo> {
  engine.checkOpen();
  const { stepId, ownedBy } = input;
  const sourceId = source.state.session.sessionId;
  const setup = forkSetup(engine, source, input);
  const replay = input.run === true ? replayPlan(source.state, stepId) : undefined;
  const copy = replay === undefined ? forkCopy(source.state, stepId, engine.newId) : replay.copy(engine.newId);
  if (replay !== undefined) engine.checkCapacity(input.quota);
  const copiedTo = replay === undefined ? stepId : replay.copiedTo;
  const info: SessionInfo = {
    sessionId: engine.newId(),
    task: source.state.session.task,
    agent: setup.agentName,
    status: replay === undefined ? copy.status : 'running',
    revision: 0,
    createdAt: engine.now().toISOString(),
    forkedFrom: { sessionId: sourceId, stepId, ...forkIndexOf(source.state, stepId) },
  };
  if (setup.model !== undefined) info.model = setup.model;
  // A fork belongs to whoever forked it, whoever owns the source (PROTOCOL.md §21.2).
  if (ownedBy !== undefined) info.owner = { id: ownedBy.id, name: ownedBy.name };
  await openSession(engine, info, setup.options, reply, attach, (fork) => {
    fork.setStatus(replay === undefined ? copy.status : 'running');
    // The path's copies, then each copied sub-agent's scope (PROTOCOL.md §24.7); a scoped fork's own `from` is the named step.
    for (const event of copy.events) {
      const from = event.type === 'steps.copied' && event === copy.events[0] ? { from: { sessionId: sourceId, stepId: copiedTo ?? stepId } } : {};
      fork.append({ ...event, ...fork.nextBase(), ...from } as LoggedSessionEvent);
    }
    if (replay !== undefined && setup.agent !== undefined) {
      fork.countAgainst(input.quota?.key);
      startReplay(engine, fork, setup.agent);
    } else engine.noteIfIdle(fork);
  });
  return { ...info };
}

/** Written straight to the store, not held in memory: the session is loaded the first time it is touched, like any stored one. */
export async function importSession(engine: SessionEngine, parsed: ParsedImport, ownedBy?: Actor): Promise<SessionInfo> {
  await engine.open();
  const stored = importedSession(parsed, engine.newId(), engine.now().toISOString(), ownedBy);
  await writeImport(engine.store, stored);
  engine.hooks.summaryStored(stored.record.info);
  engine.timers.armDeadlineOf(stored.state, stored.record.options);
  return stored.record.info;
}

/** The forked step's place in its chain, so lists can say "at step 6" (PROTOCOL.md §20.4). */
function forkIndexOf(state: SessionState, stepId: string): { index?: number } {
  const index = state.steps.get(stepId)?.index;
  return index === undefined ? {} : { index };
}
