import type { SessionEvent, SessionSnapshot, SessionState } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { useDurableScope } from './support/durable-scope.js';
import { startDurableServer, type DurableServer, type TempFolder } from './support/durable-server.js';
import { expectCompletedLog, expectWholeLog } from './support/log-checks.js';
import type { RawClient } from './support/raw-client.js';

/*
 * PROTOCOL.md §24.7 with a real process: `kill -9` while the demo agent's two parallel sub-agents
 * stream, a restart on the same SQLite file, and `session.resume` joining their answers.
 */

const TWO_PARTS = 'What is 17 * 23 + 4? Also, what is 15% of 240?';
/** A short part that finishes while the long one still streams. */
const SHORT_THEN_LONG = 'What is 2 + 2? Also, what is 17 * 23 * 19 - 4 * 7 + 12 * 31 - 8 * 9 + 6 * 14 - 3?';
/** Slow enough that both sub-agents are still mid-stream when the process dies (each writes several steps). */
const TOKEN_DELAY_MS = 60;
/** The machine may be loaded: a start, a run and a resume can each take many seconds. */
const WAIT_MS = 120_000;
/** Two server starts, a slow run, a resume and a reference run: generous, as the machine may be loaded. */
const TEST_TIMEOUT_MS = 360_000;

let folder: TempFolder;
const connect = useDurableScope((made) => (folder = made));

const parse = (texts: readonly string[]): SessionEvent[] => texts.map((text) => JSON.parse(text) as SessionEvent);

/** The scopes the events opened, in the order they started. */
function scopesOf(events: readonly SessionEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'subagent.started' ? [event.scope] : []));
}

/** The scope of each step the events started (undefined: the root's). */
function scopeByStep(events: readonly SessionEvent[]): Map<string, string | undefined> {
  return new Map(events.flatMap((event) => (event.type === 'step.started' ? [[event.step.stepId, event.step.scope] as const] : [])));
}

/** The ids of the steps started in `scope`, in the order they started. */
function stepsStartedIn(events: readonly SessionEvent[], scope: string): string[] {
  return events.flatMap((event) => (event.type === 'step.started' && event.step.scope === scope ? [event.step.stepId] : []));
}

/** Whether every scope opened so far streamed text into a step of its own: the sub-agents are all under way. */
function everyScopeStreamed(events: readonly SessionEvent[], scopes: number): boolean {
  const opened = scopesOf(events);
  if (opened.length < scopes) return false;
  const stepScopes = scopeByStep(events);
  const streamed = new Set(events.flatMap((event) => (event.type === 'step.delta' ? [stepScopes.get(event.stepId)] : [])));
  return opened.every((scope) => streamed.has(scope));
}

/** The sub-agents' status by scope, as the events leave them. */
function subagentStatuses(state: SessionState): Record<string, string> {
  return Object.fromEntries([...state.subagents.values()].map((info) => [info.scope, info.status]));
}

/** The session's whole durable log, as a fresh subscriber from seq 0 gets it. */
async function wholeLog(server: DurableServer, sessionId: string): Promise<SessionEvent[]> {
  const fresh = await connect(server.wsUrl);
  const subscribed = await fresh.subscribe(sessionId, 0);
  expect(subscribed).toMatchObject({ type: 'session.subscribed', afterSeq: 0 });
  const lastSeq = (subscribed as { lastSeq: number }).lastSeq;
  await fresh.untilSeq(sessionId, lastSeq, WAIT_MS);
  return parse(fresh.eventTexts(sessionId));
}

/** The content of the final answer the session ended with. */
function finalAnswer(state: SessionState): string {
  const last = state.steps.get(state.chain.at(-1) ?? '');
  expect(last?.kind).toBe('final_answer');
  return last?.content ?? '';
}

/** The kinds of each sub-agent's chain, by its task: what a run of the parts writes. */
function scopeChainKinds(state: SessionState): Record<string, (string | undefined)[]> {
  return Object.fromEntries([...state.subagents.values()].map((info) => [info.task, info.chain.map((stepId) => state.steps.get(stepId)?.kind)]));
}

/** The same task run without a kill on `server` (at full speed): the chains an uninterrupted run writes. */
async function uninterruptedRun(server: DurableServer, task: string): Promise<SessionState> {
  const client = await connect(server.wsUrl);
  const sessionId = await client.client.createSession(task, { options: { tokenDelayMs: 0 } });
  return expectCompletedLog(sessionId, await client.client.untilFinished(sessionId, WAIT_MS));
}

async function startOn(db: string): Promise<DurableServer> {
  return startDurableServer({ INTERTHOUGHT_DB: db });
}

async function createTwoParts(client: RawClient, task: string): Promise<string> {
  return client.client.createSession(task, { options: { tokenDelayMs: TOKEN_DELAY_MS } });
}

describe('kill -9 while two sub-agents run, then a restart on the same database file', () => {
  it('interrupts the session and both sub-agents, keeps every step, and resume runs both scopes on to the joined answer', async () => {
    const db = folder.file('sessions.db');
    const first = await startOn(db);
    const watcher = await connect(first.wsUrl);
    const sessionId = await createTwoParts(watcher, TWO_PARTS);
    await watcher.client.waitFor(() => everyScopeStreamed(watcher.events(sessionId), 2), 'both sub-agents to stream a step', WAIT_MS);
    await first.crash();

    const seen = watcher.eventTexts(sessionId);
    const before = expectWholeLog(sessionId, parse(seen));
    const scopes = scopesOf(parse(seen));
    expect(scopes).toHaveLength(2);
    // Mid-stream for real: neither sub-agent nor the session had finished when the process died.
    expect(subagentStatuses(before)).toEqual(Object.fromEntries(scopes.map((scope) => [scope, 'running'])));
    expect(before.session.status).toBe('running');

    const second = await startOn(db);
    expect(second.stdout()).toContain('1 session was running when the server last stopped: marked interrupted');
    const reader = await connect(second.wsUrl);
    const snapshot = (await reader.subscribe(sessionId)) as SessionSnapshot;
    expect(snapshot).toMatchObject({ type: 'session.snapshot', session: { status: 'interrupted' } });
    expect(snapshot.subagents?.map((info) => [info.scope, info.status])).toEqual(scopes.map((scope) => [scope, 'interrupted']));
    const overHttp = (await (await fetch(`${second.url}/api/sessions/${sessionId}`)).json()) as SessionSnapshot;
    expect(overHttp.subagents?.map((info) => [info.scope, info.status])).toEqual(scopes.map((scope) => [scope, 'interrupted']));

    // The durable log: seq 1 … n, what the watcher saw first byte for byte, then the interruption.
    const log = await wholeLog(second, sessionId);
    expect(log.slice(0, seen.length)).toEqual(parse(seen));
    const stored = expectWholeLog(sessionId, log);
    expect(stored.session.status).toBe('interrupted');
    expect(subagentStatuses(stored)).toEqual(Object.fromEntries(scopes.map((scope) => [scope, 'interrupted'])));
    for (const stepId of before.steps.keys()) expect(stored.steps.has(stepId), `step ${stepId} kept`).toBe(true);
    // The log may hold a few events the watcher had not received yet; after them, the interruption and nothing else.
    const interruption = log.findIndex((event) => event.type === 'session.status' && event.status === 'interrupted');
    expect(interruption).toBeGreaterThanOrEqual(seen.length);
    expect(log.slice(interruption).map((event) => [event.type, 'scope' in event ? event.scope : undefined, 'status' in event ? event.status : undefined])).toEqual([
      ['session.status', undefined, 'interrupted'],
      ...scopes.map((scope) => ['subagent.status', scope, 'interrupted']),
    ]);

    const answer = await reader.request({ type: 'session.resume', sessionId });
    expect(answer).toMatchObject({ type: 'session.status', sessionId, status: 'running' });
    await reader.client.untilFinished(sessionId, WAIT_MS);
    const done = expectCompletedLog(sessionId, await wholeLog(second, sessionId));
    const joined = finalAnswer(done);
    expect(joined).toContain('395');
    expect(joined).toContain('36');
    expect(subagentStatuses(done)).toEqual(Object.fromEntries(scopes.map((scope) => [scope, 'completed'])));

    // Each scope ran on from its chain: the steps it had written before the kill still lead its chain, completed.
    for (const scope of scopes) {
      const writtenBefore = stepsStartedIn(parse(seen), scope);
      expect(writtenBefore.length).toBeGreaterThan(0);
      const chain = done.subagents.get(scope)?.chain ?? [];
      expect(chain.slice(0, writtenBefore.length), `chain of ${scope}`).toEqual(writtenBefore);
      for (const stepId of writtenBefore) expect(done.steps.get(stepId)?.status, `step ${stepId}`).toBe('completed');
    }
    // The batch joined once, and the root's steps from before the kill lead its chain: thought, the two calls, their observations, the answer.
    expect(done.chain.slice(0, before.chain.length)).toEqual(before.chain);
    expect(done.chain.slice(1, 3)).toEqual(scopes);
    expect(done.chain.map((stepId) => done.steps.get(stepId)?.kind)).toEqual(['thought', 'tool_call', 'tool_call', 'observation', 'observation', 'final_answer']);
    expect(done.subagents.size).toBe(2);
    // Nothing was written twice: each scope's chain is what a run that was never killed writes.
    const reference = await uninterruptedRun(second, TWO_PARTS);
    expect(scopeChainKinds(done)).toEqual(scopeChainKinds(reference));
    expect(done.chain.map((stepId) => done.steps.get(stepId)?.content)).toEqual(reference.chain.map((stepId) => reference.steps.get(stepId)?.content));
    expect(await second.stop()).toBe(0);
  }, TEST_TIMEOUT_MS);

  it('gives a sub-agent that finished before the kill its stored answer on resume: it writes no step after the restart', async () => {
    const db = folder.file('sessions.db');
    const first = await startOn(db);
    const watcher = await connect(first.wsUrl);
    const sessionId = await createTwoParts(watcher, SHORT_THEN_LONG);
    const finishedFrame = await watcher.client.waitFor(
      (frame) => frame.type === 'subagent.status' && frame.sessionId === sessionId && frame.status === 'completed',
      'the short sub-agent to finish',
      WAIT_MS,
    );
    await first.crash();

    const seen = parse(watcher.eventTexts(sessionId));
    const before = expectWholeLog(sessionId, seen);
    const scopes = scopesOf(seen);
    expect(scopes).toHaveLength(2);
    const finished = (finishedFrame as { scope: string }).scope;
    const running = scopes.find((scope) => scope !== finished)!;
    expect(before.subagents.get(finished)?.task).toBe('What is 2 + 2?');
    // The long part was still under way when the process died.
    expect(subagentStatuses(before)).toEqual({ [finished]: 'completed', [running]: 'running' });

    const second = await startOn(db);
    expect(second.stdout()).toContain('1 session was running when the server last stopped: marked interrupted');
    const reader = await connect(second.wsUrl);
    const snapshot = (await reader.subscribe(sessionId)) as SessionSnapshot;
    expect(snapshot).toMatchObject({ type: 'session.snapshot', session: { status: 'interrupted' } });
    expect(Object.fromEntries((snapshot.subagents ?? []).map((info) => [info.scope, info.status]))).toEqual({ [finished]: 'completed', [running]: 'interrupted' });
    const finishedChain = before.subagents.get(finished)?.chain ?? [];
    expect(snapshot.subagents?.find((info) => info.scope === finished)?.chain).toEqual(finishedChain);

    // The kill came while the long part was still narrating: a step cut off mid-stream is completed as it is on resume
    // (§5.2), and a cut calculator input would then be run as it is.
    const cutStep = snapshot.steps.find((step) => step.stepId === snapshot.subagents?.find((info) => info.scope === running)?.chain.at(-1));
    expect(['thought', 'action'], `the kind of the long part's last step at the kill`).toContain(cutStep?.kind);

    expect(await reader.request({ type: 'session.resume', sessionId })).toMatchObject({ type: 'session.status', status: 'running' });
    await reader.client.untilFinished(sessionId, WAIT_MS);
    const log = await wholeLog(second, sessionId);
    expect(log.slice(0, seen.length)).toEqual(seen);
    const done = expectCompletedLog(sessionId, log);
    const afterRestart = log.slice(log.findIndex((event) => event.type === 'session.status' && event.status === 'interrupted'));
    // The finished sub-agent was not run again: not one step or status of it after the restart, and its chain as it was.
    expect(stepsStartedIn(afterRestart, finished)).toEqual([]);
    expect(afterRestart.filter((event) => event.type === 'subagent.status' && event.scope === finished)).toEqual([]);
    expect(stepsStartedIn(afterRestart, running).length).toBeGreaterThan(0);
    expect(done.subagents.get(finished)?.chain).toEqual(finishedChain);
    expect(subagentStatuses(done)).toEqual({ [finished]: 'completed', [running]: 'completed' });
    // The interrupted one ran on from its chain: its steps from before the kill lead it.
    const writtenBefore = stepsStartedIn(seen, running);
    expect(done.subagents.get(running)?.chain.slice(0, writtenBefore.length)).toEqual(writtenBefore);
    const joined = finalAnswer(done);
    expect(joined).toContain('= 4');
    expect(joined).toContain(String(17 * 23 * 19 - 4 * 7 + 12 * 31 - 8 * 9 + 6 * 14 - 3));
    const reference = await uninterruptedRun(second, SHORT_THEN_LONG);
    expect(scopeChainKinds(done)).toEqual(scopeChainKinds(reference));
    expect(await second.stop()).toBe(0);
  }, TEST_TIMEOUT_MS);
});
