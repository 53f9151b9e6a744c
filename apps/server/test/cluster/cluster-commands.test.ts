import type { ServerMessage, SessionInfo, SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { sessionKeys } from '../../src/cluster/redis-keys.js';
import { clusterPerFile, expectContiguous, NODE_IDS, requesterCopy, type RecordingClient } from '../support/cluster.js';

const cluster = clusterPerFile();

/** A run that streams until it is cancelled (100 deltas a second for 1,000 s). */
const ENDLESS = 'firehose rate=100 count=100000 size=16';

async function startEndless(creator: RecordingClient): Promise<string> {
  return creator.createSession(ENDLESS, { agent: 'firehose' });
}

function statusesOf(client: RecordingClient, sessionId: string): string[] {
  return client.events(sessionId).flatMap((event) => (event.type === 'session.status' ? [event.status] : []));
}

function errorCode(answer: ServerMessage): string | undefined {
  return answer.type === 'error' ? answer.code : undefined;
}

describe('Pause, resume and cancel sent to nodes that do not run the session', () => {
  it('answers each requester once, with its copy in place of the plain event, and every viewer sees the same status events', async () => {
    const creator = await cluster.connect('a');
    const onB = await cluster.connect('b');
    const onC = await cluster.connect('c');
    const outsider = await cluster.connect('b');
    const sessionId = await startEndless(creator);
    for (const client of [onB, onC]) await client.request({ type: 'session.subscribe', sessionId, afterSeq: 0 });
    expect(await cluster.leaseHolder(sessionId)).toBe('a');
    const viewers = [creator, onB, onC];
    await Promise.all(viewers.map((client) => client.waitForSeq(sessionId, 5)));

    const pause = await onB.request({ type: 'session.pause', sessionId });
    expect(pause.answer).toMatchObject({ type: 'session.status', sessionId, status: 'paused', requestId: pause.id });
    const pausedSeq = (pause.answer as SessionEvent).seq;
    await Promise.all(viewers.map((client) => client.waitForStatus(sessionId, 'paused')));

    const resume = await onC.request({ type: 'session.resume', sessionId });
    expect(resume.answer).toMatchObject({ type: 'session.status', sessionId, status: 'running', requestId: resume.id });
    const resumedSeq = (resume.answer as SessionEvent).seq;
    expect(resumedSeq).toBe(pausedSeq + 1);
    // The run goes on after the resume, on its owner.
    await Promise.all(viewers.map((client) => client.waitForSeq(sessionId, resumedSeq + 5)));

    // A requester that does not follow the session gets its copy all the same.
    const cancel = await outsider.request({ type: 'session.cancel', sessionId });
    expect(cancel.answer).toMatchObject({ type: 'session.status', sessionId, status: 'cancelled', requestId: cancel.id });
    const cancelledSeq = (cancel.answer as SessionEvent).seq;
    await Promise.all(viewers.map((client) => client.waitForSeq(sessionId, cancelledSeq)));

    const log = await cluster.log(sessionId);
    expectContiguous(log.map((entry) => entry.seq));
    expect(log.at(-1)?.seq).toBe(cancelledSeq);
    // Paused means paused: the event after `paused` in the log is the resume.
    expect(JSON.parse(log[pausedSeq]!.frame)).toMatchObject({ type: 'session.status', status: 'running', seq: resumedSeq });

    const expected = log.map((entry) => entry.frame);
    const answered = (requestId: string, seq: number): string[] => expected.map((frame, index) => (index + 1 === seq ? requesterCopy(frame, requestId) : frame));
    expect(creator.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(expected);
    expect(onB.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(answered(pause.id, pausedSeq));
    expect(onC.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(answered(resume.id, resumedSeq));
    expect(outsider.raw.slice(1)).toEqual([requesterCopy(log.at(-1)!.frame, cancel.id)]);
    for (const client of viewers) {
      expectContiguous(client.seqs(sessionId));
      expect(statusesOf(client, sessionId)).toEqual(['running', 'paused', 'running', 'cancelled']);
    }
  });

  it('routes a command on a paused session to its owner, lets the session go once it ended, and refuses a later command on whichever node it was asked', async () => {
    const creator = await cluster.connect('a');
    const sessionId = await startEndless(creator);
    await creator.waitForSeq(sessionId, 3);
    const pause = await creator.request({ type: 'session.pause', sessionId });
    expect(pause.answer).toMatchObject({ status: 'paused', requestId: pause.id });
    // A paused run keeps its owner; cancelling from c is routed to a.
    expect(await cluster.leaseHolder(sessionId)).toBe('a');
    const onC = await cluster.connect('c');
    await onC.request({ type: 'session.subscribe', sessionId, afterSeq: 0 });
    const cancel = await onC.request({ type: 'session.cancel', sessionId });
    expect(cancel.answer).toMatchObject({ type: 'session.status', status: 'cancelled', requestId: cancel.id });
    await creator.waitForStatus(sessionId, 'cancelled');
    // A finished session is let go: its lease is given back and nothing is left to take over.
    await expectLeaseGone(sessionId);
    // Resuming a cancelled session is refused by whichever node takes it up.
    const resume = await onC.request({ type: 'session.resume', sessionId });
    expect(resume.answer).toMatchObject({ type: 'error', code: 'INVALID_STATE', requestId: resume.id });
    const log = await cluster.log(sessionId);
    expect(onC.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(
      log.map((entry) => (entry.seq === log.length ? requesterCopy(entry.frame, cancel.id) : entry.frame)),
    );
    await expectLeaseGone(sessionId);
  });
});

async function expectLeaseGone(sessionId: string): Promise<void> {
  await expect.poll(() => cluster.leaseHolder(sessionId), { timeout: 5_000 }).toBeUndefined();
  expect(await cluster.admin.sismember('it:active', sessionId)).toBe(0);
}

describe('Deleting a session from a node that does not run it', () => {
  it('ends every viewer on every node with session.deleted, and refuses every later request on every node', async () => {
    const creator = await cluster.connect('a');
    const onB = await cluster.connect('b');
    const snapshotOnB = await cluster.connect('b');
    const onC = await cluster.connect('c');
    const requester = await cluster.connect('c');
    // A fast, unpaced run: a batch of it is still being written while the store deletes the session.
    const sessionId = await creator.createSession('firehose rate=5000 count=10000000 size=16', { agent: 'firehose', options: { tokenDelayMs: 0 } });
    for (const client of [onB, onC, requester]) await client.request({ type: 'session.subscribe', sessionId, afterSeq: 0 });
    await creator.waitForSeq(sessionId, 10);
    await snapshotOnB.request({ type: 'session.subscribe', sessionId });
    const viewers = [creator, onB, snapshotOnB, onC, requester];

    const deletion = await requester.request({ type: 'session.delete', sessionId });
    expect(deletion.answer).toMatchObject({ type: 'session.deleted', sessionId, requestId: deletion.id });
    const deletedSeq = (deletion.answer as SessionEvent).seq;
    await Promise.all(
      viewers.map(async (client) => {
        const deleted = await client.waitFor((frame) => frame.type === 'session.deleted', 'session.deleted', 10_000).catch(() => undefined);
        // Said plainly when it never comes: each node drops a session.deleted whose seq its viewers already got.
        expect(deleted, `no session.deleted after seq ${client.cursor(sessionId)} (it came at seq ${deletedSeq} to the requester)`).toBeDefined();
      }),
    );

    // Every later request is refused on every node; each refusal also proves nothing more came before it.
    for (const id of NODE_IDS) {
      const client = await cluster.connect(id);
      for (const request of [
        { type: 'session.subscribe', sessionId, afterSeq: 0 },
        { type: 'session.subscribe', sessionId },
        { type: 'session.pause', sessionId },
        { type: 'session.resume', sessionId },
        { type: 'session.cancel', sessionId },
        { type: 'session.delete', sessionId },
        { type: 'step.correct', sessionId, stepId: 'x', content: 'y' },
      ]) {
        expect(errorCode((await client.request(request)).answer), `${request.type} on node ${id}`).toBe('SESSION_NOT_FOUND');
      }
      const rest = await fetch(`${cluster.node(id).baseUrl}/api/sessions/${sessionId}`);
      expect(rest.status).toBe(404);
    }
    for (const client of viewers) {
      const again = await client.request({ type: 'session.pause', sessionId });
      expect(errorCode(again.answer)).toBe('SESSION_NOT_FOUND');
    }

    for (const client of viewers) {
      const events = client.events(sessionId);
      // session.deleted is the last event, once, right after the last one logged.
      expect(events.at(-1)).toMatchObject({ type: 'session.deleted', seq: deletedSeq });
      expect(events.filter((event) => event.type === 'session.deleted')).toHaveLength(1);
      expect(events.at(-2)?.seq).toBe(deletedSeq - 1);
      if (client !== snapshotOnB) expectContiguous(client.seqs(sessionId));
      const deleted = client.eventFrames(sessionId).at(-1)!;
      expect('requestId' in deleted.event).toBe(client === requester);
    }
    const plain = creator.eventFrames(sessionId).at(-1)!.raw;
    for (const client of [onB, snapshotOnB, onC]) expect(client.eventFrames(sessionId).at(-1)!.raw).toBe(plain);
    expect(requester.eventFrames(sessionId).at(-1)!.raw).toBe(requesterCopy(plain, deletion.id));

    // Nothing of it is left in Redis.
    const keys = sessionKeys(sessionId);
    expect(await cluster.admin.exists(keys.meta, keys.log, keys.snap, keys.lease)).toBe(0);
    expect(await cluster.admin.sismember('it:active', sessionId)).toBe(0);
  });
});

describe('The list of sessions across nodes', () => {
  it('is the same on every node, and a watcher on one node sees creations, changes and removals made on the others', async () => {
    // A watcher on every node: the one on a (where the session runs) sees what its core stores.
    const watchers = await Promise.all(NODE_IDS.map((id) => cluster.connect(id)));
    const watching = await Promise.all(watchers.map((watcher) => watcher.request({ type: 'sessions.watch' })));
    const listed = watching.map(({ answer }) => (answer as Extract<ServerMessage, { type: 'sessions.watching' }>).sessions);
    for (const sessions of listed) expect(sessions).toEqual(listed[0]);
    const before = listed[0]!.map((session) => session.sessionId);
    const watcherOnC = watchers[2]!;

    const creator = await cluster.connect('a');
    const first = await startEndless(creator);
    const second = await (await cluster.connect('b')).createSession('What is 2 + 3?', { options: { tokenDelayMs: 0 } });
    const changed = (sessionId: string, status: string) => (frame: ServerMessage) =>
      frame.type === 'sessions.changed' && frame.session.sessionId === sessionId && frame.session.status === status;
    await watcherOnC.waitFor(changed(first, 'running'), `${first} created`);
    await watcherOnC.waitFor(changed(second, 'completed'), `${second} completed`);

    const pause = await (await cluster.connect('b')).request({ type: 'session.pause', sessionId: first });
    expect(pause.answer).toMatchObject({ status: 'paused' });
    await watcherOnC.waitFor(changed(first, 'paused'), `${first} paused`);

    const lists = await Promise.all(NODE_IDS.map((id) => cluster.node(id).getJson<{ sessions: SessionInfo[] }>('/api/sessions?limit=100')));
    for (const list of lists) expect(list).toEqual(lists[0]);
    expect(lists[0]!.sessions.map((session) => session.sessionId)).toEqual([second, first, ...before]);
    expect(lists[0]!.sessions[1]).toMatchObject({ sessionId: first, status: 'paused' });

    // Deleted over REST on a node that does not run it.
    const deleted = await fetch(`${cluster.node('b').baseUrl}/api/sessions/${first}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    await Promise.all(watchers.map((watcher) => watcher.waitFor((frame) => frame.type === 'sessions.removed' && frame.sessionId === first, `${first} removed`)));
    const after = await Promise.all(NODE_IDS.map((id) => cluster.node(id).getJson<{ sessions: SessionInfo[] }>('/api/sessions?limit=100')));
    for (const list of after) expect(list.sessions.map((session) => session.sessionId)).toEqual([second, ...before]);
    // The creator followed it: the REST deletion reached it too, as its last event.
    await creator.waitForType('session.deleted', (frame) => frame.sessionId === first);
    expect(creator.events(first).at(-1)?.type).toBe('session.deleted');

    // Every node's watcher got the same list changes, in the same order, once each.
    const about = (watcher: RecordingClient, sessionId: string): string[] =>
      watcher.raw.filter((_, index) => {
        const frame = watcher.frames[index]!;
        return (frame.type === 'sessions.changed' && frame.session.sessionId === sessionId) || (frame.type === 'sessions.removed' && frame.sessionId === sessionId);
      });
    for (const sessionId of [first, second]) {
      for (const watcher of watchers) expect(about(watcher, sessionId)).toEqual(about(watchers[0]!, sessionId));
    }
    const statuses = about(watcherOnC, first).map((raw) => {
      const frame = JSON.parse(raw) as ServerMessage;
      return frame.type === 'sessions.changed' ? frame.session.status : 'removed';
    });
    expect(statuses.filter((status, index) => status !== statuses[index - 1])).toEqual(['running', 'paused', 'removed']);
  });
});
