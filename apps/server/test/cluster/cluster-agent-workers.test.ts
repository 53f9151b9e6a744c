import { describe, expect, it } from 'vitest';
import type { AgentListing, SessionEvent } from '@interthought/protocol';
import { clusterPerFile, eventually, type RecordingClient } from '../support/cluster.js';
import { TestWorker, WORKER_TOKEN } from '../agents/remote/worker-client.js';

const cluster = clusterPerFile({ env: { INTERTHOUGHT_AGENT_TOKENS: WORKER_TOKEN } });
const AGENT = 'py-agent';

/** Workers of a test, closed after it. */
async function workerOn(nodeId: string, name = AGENT): Promise<TestWorker> {
  return TestWorker.serving(cluster.node(nodeId).baseUrl, name);
}

async function listing(nodeId: string, name = AGENT): Promise<AgentListing | undefined> {
  const agents = await cluster.node(nodeId).getJson<AgentListing[]>('/api/agents');
  return agents.find((agent) => agent.name === name);
}

/** Every node lists the agent with this availability. */
async function everyNodeSays(available: boolean, name = AGENT): Promise<void> {
  for (const nodeId of ['a', 'b', 'c']) {
    await eventually(async () => ((await listing(nodeId, name))?.available === available ? true : undefined), `node ${nodeId} to list ${name} as ${available ? '' : 'un'}available`);
  }
}

async function create(client: RecordingClient, options: Record<string, unknown> = {}, name = AGENT): Promise<string> {
  const { answer } = await client.request({ type: 'session.create', task: 'Compute 6*7 and write it down', agent: name, options: { tokenDelayMs: 0, ...options } });
  if (answer.type !== 'session.created') throw new Error(`session.create was answered ${JSON.stringify(answer)}`);
  return answer.session.sessionId;
}

function stepIdOf(events: readonly SessionEvent[], content: string): string {
  const completed = events.find((event) => event.type === 'step.completed' && event.content === content);
  if (completed === undefined || completed.type !== 'step.completed') throw new Error(`no completed step "${content}"`);
  return completed.stepId;
}

describe('cluster: agent workers', () => {
  it('lists a remote agent as available on every node while any node has a worker for it', async () => {
    expect(await listing('a', 'lister')).toBeUndefined();
    const worker = await workerOn('c', 'lister');
    try {
      await everyNodeSays(true, 'lister');
      expect(await listing('a', 'lister')).toMatchObject({ description: 'lister, served by a test worker', default: false });
    } finally {
      worker.close();
    }
    await everyNodeSays(false, 'lister');
    expect((await listing('b', 'lister'))?.reason).toBe('no worker connected');
  });

  it('runs a session created on node a on node b, whose worker serves its agent; a watches it stream, and a correction from c reaches the worker', async () => {
    const worker = await workerOn('b');
    try {
      await everyNodeSays(true);
      const onA = await cluster.connect('a');
      const sessionId = await create(onA);
      const first = await worker.nthRunStart(1);
      expect(first).toMatchObject({ sessionId, agent: AGENT, task: 'Compute 6*7 and write it down', chain: [] });
      expect(await cluster.leaseHolder(sessionId)).toBe('b');
      worker.step(first.runId, 't', 'thought', 'I will multiply 6 by 7.');
      worker.step(first.runId, 'f', 'final_answer', '42');
      worker.send({ type: 'run.end', runId: first.runId });
      const events = await onA.untilFinished(sessionId);
      expect(events.at(-1)).toMatchObject({ type: 'session.status', status: 'completed' });
      expect(events.filter((event) => event.type === 'step.delta').map((event) => (event.type === 'step.delta' ? event.text : '')).join('')).toBe('I will multiply 6 by 7.42');
      // The creator on a followed the session from seq 1, without a gap.
      expect(onA.seqs(sessionId)).toEqual(events.map((_, index) => index + 1));

      const onC = await cluster.connect('c');
      await onC.request({ type: 'session.subscribe', sessionId });
      const stepId = stepIdOf(events, 'I will multiply 6 by 7.');
      const { answer } = await onC.request({ type: 'step.correct', sessionId, stepId, content: 'I will multiply 6 by 8.', note: 'the task says 6*8' });
      expect(answer).toMatchObject({ type: 'correction.accepted' });
      const second = await worker.nthRunStart(2);
      expect(second.chain).toEqual([expect.objectContaining({ kind: 'thought', status: 'corrected', content: 'I will multiply 6 by 8.', correctionOf: stepId })]);
      expect(await cluster.leaseHolder(sessionId)).toBe('b');
      worker.step(second.runId, 'f', 'final_answer', '48');
      worker.send({ type: 'run.end', runId: second.runId });
      await onA.waitFor((frame) => frame.type === 'step.completed' && frame.sessionId === sessionId && frame.content === '48', 'the corrected run to finish on a');
      expect((await onC.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
    } finally {
      worker.close();
    }
  });

  it('interrupts the session when its worker on b goes away, and session.resume from any node continues it where a new worker is', async () => {
    const onB = await workerOn('b');
    const watcher = await cluster.connect('c');
    const sessionId = await eventually(async () => ((await listing('c'))?.available === true ? create(watcher) : undefined), 'py-agent on c');
    const first = await onB.nthRunStart(1);
    expect(await cluster.leaseHolder(sessionId)).toBe('b');
    onB.step(first.runId, 't', 'thought', 'Half of it.');
    await watcher.waitFor((frame) => frame.type === 'step.completed' && frame.sessionId === sessionId, 'the first step on c');
    onB.terminate();
    const interrupted = await watcher.waitForStatus(sessionId, 'interrupted');
    expect(interrupted.detail).toMatch(/went away/u);
    await everyNodeSays(false);
    // Nothing runs it now: b handed it back.
    await eventually(async () => ((await cluster.leaseHolder(sessionId)) === undefined ? true : undefined), 'b to hand the session back');

    const onA = await workerOn('a');
    try {
      await everyNodeSays(true);
      const resumer = await cluster.connect('b');
      const { answer } = await resumer.request({ type: 'session.resume', sessionId });
      expect(answer).toMatchObject({ type: 'session.status', status: 'running' });
      const resumed = await onA.nthRunStart(1);
      expect(resumed.chain).toEqual([expect.objectContaining({ kind: 'thought', content: 'Half of it.', status: 'completed' })]);
      expect(await cluster.leaseHolder(sessionId)).toBe('a');
      onA.step(resumed.runId, 'f', 'final_answer', 'Done.');
      onA.send({ type: 'run.end', runId: resumed.runId });
      expect((await watcher.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
    } finally {
      onA.close();
    }
  });

  it('runs the approval of a call whose worker left, given on c, on the node of the new worker', async () => {
    const onB = await workerOn('b');
    const client = await cluster.connect('a');
    const sessionId = await eventually(async () => ((await listing('a'))?.available === true ? create(client, { approve: ['shell'] }) : undefined), 'py-agent on a');
    const first = await onB.nthRunStart(1);
    onB.step(first.runId, 'c', 'tool_call', '{"cmd":"echo 42"}', { tool: 'shell' });
    const requested = await client.waitForType('approval.requested');
    onB.close();
    await everyNodeSays(false);
    const onA = await workerOn('a');
    try {
      await everyNodeSays(true);
      const approver = await cluster.connect('c');
      approver.send({ type: 'tool.approve', sessionId, stepId: requested.stepId });
      const resumed = await onA.nthRunStart(1);
      expect(resumed.call).toMatchObject({ stepId: requested.stepId, tool: 'shell' });
      expect(await cluster.leaseHolder(sessionId)).toBe('a');
      onA.step(resumed.runId, 'o', 'observation', '42', { tool: 'shell', result: { stdout: '42' } });
      onA.step(resumed.runId, 'f', 'final_answer', '42');
      onA.send({ type: 'run.end', runId: resumed.runId });
      expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
    } finally {
      onA.close();
    }
  });

  it('still creates sessions of an in-process agent on the requester node', async () => {
    const client = await cluster.connect('c');
    const sessionId = await create(client, { tokenDelayMs: 0 }, 'demo');
    await client.waitForType('step.started');
    const holder = await cluster.leaseHolder(sessionId);
    expect(holder === undefined || holder === 'c').toBe(true);
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
  });
});
