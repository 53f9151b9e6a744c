import { nanoid } from 'nanoid';
import { ASK_USER_TOOL, type Step } from '@interthought/protocol';
import { EventEncoder } from '@ag-ui/encoder';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Quota } from '../../core/commands/quota.js';
import { SessionError } from '../../core/session-error.js';
import { actorOf } from '../../sharing/make-share.js';
import { RunStartBudget, addressKey } from '../../transport/address-quotas.js';
import { sendRestError } from '../../rest-error-reply.js';
import { agreesWithChain } from './chain-messages.js';
import { parseRun, RunInputError, taskOf, newUserText, type ResumeDecision, type ParsedRun } from './run-input.js';
import { AgUiRunStream } from './run-stream.js';

/**
 * `POST /api/ag-ui/:agent`: any agent of the catalogue as an AG-UI endpoint (PROTOCOL.md §23). A
 * thread is the session whose id is its `threadId`: the first run creates it, a later one says the
 * new user message to it, or decides the calls its last run stopped on (`resume`). The run follows
 * the session live, as the web app does, and ends when the session comes to rest.
 */
export async function agUiRoute(app: FastifyInstance): Promise<void> {
  const { config } = app;
  const runStarts = new RunStartBudget(config.runStartsPerMinutePerAddress, config.runStartsPerMinute);
  const quotaOf = (request: FastifyRequest): Quota =>
    request.user === undefined
      ? { key: addressKey(request.ip), maxActiveSessions: config.maxActiveSessionsPerAddress, runStartsPerMinute: config.runStartsPerMinutePerAddress, whose: 'your address' }
      : { key: `user:${request.user.id}`, maxActiveSessions: config.maxActiveSessionsPerUser, runStartsPerMinute: config.runStartsPerMinutePerUser, whose: 'your account' };
  const takeRunStart = (quota: Quota): void => {
    const verdict = runStarts.take(quota.key, quota.runStartsPerMinute);
    if (verdict === 'ok') return;
    const whose = verdict === 'own' ? quota.whose : 'this server, from all its clients together,';
    throw new SessionError('RATE_LIMITED', `Too many agent runs started by ${whose} in the last minute; wait a little and try again. Nothing was changed.`);
  };

  app.post<{ Params: { agent: string } }>('/ag-ui/:agent', async (request, reply) => {
    let run: ParsedRun;
    try {
      run = parseRun(request.body);
    } catch (error) {
      if (error instanceof RunInputError) return sendRestError(reply, 'BAD_REQUEST', error.message);
      throw error;
    }
    const agentName = request.params.agent;
    const agent = app.agents.get(agentName);
    if (agent === undefined) {
      const known = app.agents.list().map((listing) => listing.name).join(', ');
      return sendRestError(reply, 'AGENT_NOT_FOUND', `Unknown agent "${agentName}". Known agents: ${known}. List them with GET /api/agents.`);
    }
    const availability = agent.availability();
    if (!availability.available) return sendRestError(reply, 'AGENT_UNAVAILABLE', `Agent "${agentName}" is unavailable: ${availability.reason}`);

    const { input } = run;
    const quota = quotaOf(request);
    const stream = new AgUiRunStream(input.threadId, input.runId, {
      id: `agui_${nanoid(12)}`,
      quota,
      ...(request.user === undefined ? {} : { user: { id: request.user.id, name: request.user.name, admin: request.user.admin } }),
    });
    try {
      await startRun(app, request, run, agentName, stream, quota, takeRunStart);
    } catch (error) {
      app.sessions.detach(stream);
      if (error instanceof RunInputError) return sendRestError(reply, 'BAD_REQUEST', error.message);
      throw error;
    }
    return streamRun(app, request, reply, stream, input);
  });
}

/** Create the thread's session, or send the run's message or decisions to it: refusals come before the stream opens. */
async function startRun(
  app: FastifyInstance,
  request: FastifyRequest,
  run: ParsedRun,
  agentName: string,
  stream: AgUiRunStream,
  quota: Quota,
  takeRunStart: (quota: Quota) => void,
): Promise<void> {
  const { sessions } = app;
  const { gate } = app.authentication;
  const { input, options, decisions } = run;
  const sessionId = input.threadId;
  const actor = actorOf(request, stream.id);
  const named = actor.byName === undefined ? { by: actor.by } : { by: actor.by, byName: actor.byName };
  if ((await sessions.accessFacts(sessionId)) === undefined) {
    gate.requireCreator(request);
    const task = taskOf(input);
    const ownedBy = gate.ownerFor(request);
    takeRunStart(quota);
    stream.commanded();
    await sessions.create({ sessionId, task, agent: agentName, ...(options === undefined ? {} : { options }), quota, ...(ownedBy === undefined ? {} : { ownedBy }) }, { peer: stream });
    return;
  }
  await gate.require(request, sessionId, 'steer');
  await sessions.subscribe(sessionId, { peer: stream });
  const state = stream.state!;
  if (state.session.agent !== agentName) {
    throw new RunInputError(`Thread ${sessionId} runs agent "${state.session.agent}": post its runs to /api/ag-ui/${state.session.agent}.`);
  }
  // A correction made elsewhere (the web app, /ws) replaced steps the client still holds.
  if (!agreesWithChain(state, input.messages)) stream.snapshotMessages();
  if (decisions.length > 0) {
    takeRunStart(quota);
    stream.commanded();
    let decided = 0;
    for (const decision of decisions) if (await decide(app, stream, decision, named, quota)) decided += 1;
    // Entries that named no waiting call answer nothing: the run ends as the session stands.
    if (decided === 0) stream.finishWaiting();
    return;
  }
  if (state.session.status === 'waiting') {
    // A call or a question still waits and nothing answers it: the run ends with its interrupts again.
    stream.finishWaiting();
    return;
  }
  const text = newUserText(input.messages);
  if (text === '') throw new RunInputError(`Nothing to run on thread ${sessionId}: add a user message, or answer its interrupts in resume.`);
  takeRunStart(quota);
  stream.commanded();
  await sessions.message({ sessionId, text, ...named, quota }, { peer: stream });
}

/** Carry out one resume entry; false when it answered nothing (a call that does not wait, a question left waiting). */
async function decide(
  app: FastifyInstance,
  stream: AgUiRunStream,
  decision: ResumeDecision,
  named: { by: string; byName?: string },
  quota: Quota,
): Promise<boolean> {
  const { sessions } = app;
  const sessionId = stream.threadId;
  const target = { sessionId, stepId: decision.stepId, ...named, quota };
  try {
    switch (decision.decision) {
      case 'approve':
        await sessions.approve(target, undefined);
        return true;
      case 'reject':
        await sessions.reject({ ...target, reason: decision.reason }, undefined);
        return true;
      case 'cancel':
        // A cancelled question stays asked: the next run without its answer gets the interrupt again (PROTOCOL.md §25.6).
        if (isQuestion(stream.state?.steps.get(decision.stepId))) return false;
        await sessions.reject({ ...target, reason: 'cancelled by the AG-UI client' }, undefined);
        return true;
      case 'edit':
        // Correcting the waiting call is its edit: the decision is recorded, and the edited call runs.
        await sessions.correct({ ...target, content: JSON.stringify(decision.args) }, undefined);
        return true;
      case 'answer':
        await sessions.provideInput({ ...target, text: decision.text }, undefined);
        return true;
    }
  } catch (error) {
    // An entry for a call that no longer waits answers nothing (AG-UI: proceed without it).
    if (error instanceof SessionError && NOT_WAITING.has(error.code)) {
      app.log.warn({ sessionId, stepId: decision.stepId, code: error.code }, 'an AG-UI resume entry answered no waiting call');
      return false;
    }
    throw error;
  }
}

/** The refusals that say a resume entry's call does not wait (any more): the entry is ignored (PROTOCOL.md §23). */
const NOT_WAITING: ReadonlySet<string> = new Set(['APPROVAL_NOT_PENDING', 'INPUT_NOT_PENDING', 'STEP_NOT_FOUND']);

function isQuestion(step: Step | undefined): boolean {
  return step?.kind === 'tool_call' && step.tool === ASK_USER_TOOL;
}

/** Open the event stream (SSE, or protobuf when the client asks) and send the run until it closes or the client leaves. */
async function streamRun(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, stream: AgUiRunStream, input: unknown): Promise<void> {
  const accept = request.headers.accept;
  const encoder = new EventEncoder(accept === undefined ? {} : { accept });
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { 'content-type': encoder.getContentType(), 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  raw.on('close', () => stream.abandon());
  stream.open((event) => {
    if (!raw.writableEnded) raw.write(encoder.encodeBinary(event));
  }, input);
  await stream.done;
  app.sessions.detach(stream);
  if (!raw.writableEnded) raw.end();
}
