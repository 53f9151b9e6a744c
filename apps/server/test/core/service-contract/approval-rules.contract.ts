import type { SessionOptions, SessionSnapshotData, Step } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { exportNdjson } from '../../../src/core/transfer/session-export.js';
import { parseImport } from '../../../src/core/transfer/session-import.js';
import { refusal } from '../support/refusal.js';
import type { ServiceTarget, ServiceTargetFactory } from './service-target.js';
import { callerTask, type PlannedToolCall } from './caller-agent.js';
import { chainOf, ends, eventually, nextFrame, snapshotOf, statusReached } from './service-support.js';

/** A `caller` session created on `a`, making `calls` under `options`, and its creator. */
async function callerSession(target: ServiceTarget, calls: readonly PlannedToolCall[], options: SessionOptions = {}) {
  const { a } = ends(target);
  const creator = target.peer('creator');
  const { sessionId } = await a.create({ task: callerTask(calls), agent: 'caller', options: { tokenDelayMs: 0, ...options } }, { peer: creator });
  return { sessionId, creator };
}

const write = (path: string, gated?: boolean): PlannedToolCall => ({ tool: 'write_file', input: { path }, ...(gated === true ? { gated } : {}) });

/** The `tool_call` steps of the chain, in order. */
function callsOf(snapshot: SessionSnapshotData): Step[] {
  return chainOf(snapshot).filter((step) => step.kind === 'tool_call');
}

/** Under `/workspace` it runs, anything else of write_file is denied, and the rest is left to the tools (PROTOCOL.md §25.4). */
const WORKSPACE_ONLY: SessionOptions['approve'] = {
  rules: [
    { tool: 'write_file', decision: 'allow', when: { path: { under: '/workspace' } } },
    { tool: 'write_file', decision: 'deny' },
  ],
};

/** Approvals given once, `approvals.forget`, and the rules of `options.approve` (PROTOCOL.md §25.3, §25.4). */
export function describeApprovalRules(name: string, factory: ServiceTargetFactory): void {
  describe(`${name}: approvals given once and rules`, () => {
    it('remembers an approval given with remember: the next call of the tool runs unasked and says who gave it; forgetting it makes the next one ask', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const calls = [write('/workspace/a'), write('/workspace/b'), write('/workspace/c', true)];
      const { sessionId, creator } = await callerSession(target, calls);
      const first = await nextFrame(creator, 'approval.requested', (frame) => frame.type === 'approval.requested');
      await b.approve({ sessionId, stepId: first.stepId as string, by: 'u-ada', byName: 'Ada', remember: 'session' }, { peer: target.peer('approver'), requestId: 'r-ok' });
      const resolved = await nextFrame(creator, 'approval.resolved', (frame) => frame.type === 'approval.resolved');
      expect(resolved).toMatchObject({ stepId: first.stepId, decision: 'approved', remember: 'session' });

      // The second call runs without asking: its step.completed carries the remembered approval.
      await eventually(() => target.files.written.length === 2, 'the second write_file call to run');
      const snapshot = await snapshotOf(b, sessionId);
      const [, second] = callsOf(snapshot);
      expect(second?.approval).toEqual({ state: 'approved', via: 'remembered', by: 'u-ada', byName: 'Ada', at: resolved.at, from: first.stepId });
      expect(snapshot.remembered).toEqual([{ tool: 'write_file', by: 'u-ada', byName: 'Ada', at: resolved.at, stepId: first.stepId }]);
      expect(creator.ofType('approval.requested')).toHaveLength(1);

      // Held at the gate before the third call: the approval is taken back, so that call asks.
      const forgetter = target.peer('forgetter');
      await a.forgetApprovals({ sessionId, tool: 'write_file', by: 'u-bob' }, { peer: forgetter, requestId: 'r-forget' });
      // The answer is the event itself, sent once it is written.
      expect(await nextFrame(forgetter, 'approvals.forgotten', (frame) => frame.type === 'approvals.forgotten')).toMatchObject({ requestId: 'r-forget', sessionId, tools: ['write_file'], by: 'u-bob' });
      expect((await snapshotOf(b, sessionId)).remembered).toBeUndefined();
      await refusal(() => b.forgetApprovals({ sessionId, tool: 'write_file' }), 'NOT_REMEMBERED');
      await refusal(() => b.forgetApprovals({ sessionId }), 'NOT_REMEMBERED');
      await refusal(() => b.forgetApprovals({ sessionId: 'no-such-session' }), 'SESSION_NOT_FOUND');
      target.gates.of(callerTask(calls)).open();
      await statusReached(creator, sessionId, 'waiting', 2);
      expect(creator.ofType('approval.requested')).toHaveLength(2);
      expect(target.files.written).toEqual(['/workspace/a', '/workspace/b']);
    });

    it('forgets every remembered approval without a tool; a fork and an import of the session start without them', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await callerSession(target, [write('/workspace/a'), write('/workspace/b')]);
      const asked = await nextFrame(creator, 'approval.requested', (frame) => frame.type === 'approval.requested');
      await b.approve({ sessionId, stepId: asked.stepId as string, by: 'u-ada', remember: 'session' });
      await statusReached(creator, sessionId, 'completed');
      const source = await snapshotOf(a, sessionId);
      expect(source.remembered?.map((remembered) => remembered.tool)).toEqual(['write_file']);

      const fork = await b.fork({ sessionId, stepId: chainOf(source).at(-1)!.stepId });
      expect((await snapshotOf(b, fork.sessionId)).remembered).toBeUndefined();
      const imported = await a.importSession(parseImport(exportNdjson(await b.exportSession(sessionId)), new Date().toISOString()));
      const copy = await snapshotOf(b, imported.sessionId);
      expect(copy.remembered).toBeUndefined();
      expect(callsOf(copy)[1]?.approval).toMatchObject({ via: 'remembered', from: asked.stepId });

      const forgetter = target.peer('forgetter');
      await b.forgetApprovals({ sessionId, by: 'u-ada' }, { peer: forgetter, requestId: 'r-all' });
      expect(await nextFrame(forgetter, 'approvals.forgotten', (frame) => frame.type === 'approvals.forgotten')).toMatchObject({ requestId: 'r-all', tools: ['write_file'] });
      expect((await snapshotOf(a, sessionId)).remembered).toBeUndefined();
    });

    it('denies by rule without asking and never runs the tool: the refusal names the rule, and the agent goes on', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator } = await callerSession(target, [write('/workspace/notes.txt'), write('/workspace/../etc/passwd')], { approve: WORKSPACE_ONLY });
      await statusReached(creator, sessionId, 'completed');
      expect(target.files.written).toEqual(['/workspace/notes.txt']);
      expect(creator.ofType('approval.requested')).toEqual([]);
      const chain = chainOf(await snapshotOf(b, sessionId));
      expect(chain.map((step) => step.kind)).toEqual(['thought', 'tool_call', 'observation', 'tool_call', 'observation', 'final_answer']);
      const [, allowed, ran, denied, refused, answer] = chain;
      expect(allowed?.approval).toEqual({ state: 'approved', via: 'rule', rule: 0, by: 'policy', at: allowed?.completedAt });
      expect(ran?.content).toBe('Wrote /workspace/notes.txt.');
      expect(denied?.approval).toMatchObject({ state: 'rejected', via: 'rule', rule: 1, by: 'policy', reason: expect.stringContaining('rule 1 (write_file: deny)') });
      expect(refused).toMatchObject({
        kind: 'observation',
        tool: 'write_file',
        parentId: denied?.stepId,
        content: "The session's rule 1 (write_file: deny) refused this write_file call, so it was not run.",
        result: { refused: true, by: 'policy', rule: 1, reason: denied?.approval?.reason },
      });
      expect(answer?.content).toContain('refused this write_file call');
    });

    it('tries the rules in order, the first match deciding, and leaves a call no rule matches to the default', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const approve: SessionOptions['approve'] = {
        rules: [
          { tool: 'write_*', decision: 'ask', when: { path: { startsWith: '/ask/' } } },
          { tool: 'write_file', decision: 'deny', when: { path: { glob: '/etc/*' } } },
          { tool: 'write_file', decision: 'allow', when: { path: { glob: '/etc/*' } } },
        ],
        default: 'allow',
      };
      const { sessionId, creator } = await callerSession(target, [write('/etc/hosts'), write('/tmp/scratch'), write('/ask/me')], { approve });
      await statusReached(creator, sessionId, 'waiting');
      const [denied, unmatched, asked] = callsOf(await snapshotOf(b, sessionId));
      expect(denied?.approval).toMatchObject({ state: 'rejected', via: 'rule', rule: 1 });
      // No rule matched: `default: "allow"` runs it though write_file changes something, and no rule is recorded.
      expect(unmatched?.approval).toBeUndefined();
      expect(asked?.approval).toMatchObject({ state: 'pending' });
      expect(target.files.written).toEqual(['/tmp/scratch']);
    });

    it('refuses a correction whose new input a deny rule matches with TOOL_DENIED naming the rule, and changes nothing', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await callerSession(target, [write('/workspace/a')], { approve: WORKSPACE_ONLY });
      await statusReached(creator, sessionId, 'completed');
      const before = await snapshotOf(a, sessionId);
      const [call] = callsOf(before);
      const denied = await refusal(() => b.correct({ sessionId, stepId: call!.stepId, content: '{"path":"/workspace/../etc/passwd"}', by: 'u-ada' }), 'TOOL_DENIED');
      expect(denied.message).toContain('rule 1 (write_file: deny)');
      expect(await snapshotOf(a, sessionId)).toEqual(before);
      await b.correct({ sessionId, stepId: call!.stepId, content: '{"path":"/workspace/b"}', by: 'u-ada' });
      await statusReached(creator, sessionId, 'completed', 2);
      expect(target.files.written).toEqual(['/workspace/a', '/workspace/b']);
    });

    it('denies a sub-agent\'s call by rule: only that call is refused, and the sub-agent and the batch go on', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const creator = target.peer('creator');
      const { sessionId } = await a.create(
        { task: 'tool alpha; beta', agent: 'delegator', options: { tokenDelayMs: 0, approve: { rules: [{ tool: 'adder', decision: 'deny' }], default: 'allow' } } },
        { peer: creator },
      );
      await statusReached(creator, sessionId, 'completed');
      const snapshot = await snapshotOf(b, sessionId);
      const alpha = snapshot.subagents?.find((info) => info.task === 'tool alpha');
      const chain = (alpha?.chain ?? []).map((id) => snapshot.steps.find((step) => step.stepId === id)!);
      expect(chain.map((step) => step.kind)).toEqual(['thought', 'tool_call', 'observation', 'final_answer']);
      expect(chain[1]?.approval).toMatchObject({ state: 'rejected', via: 'rule', rule: 0, by: 'policy' });
      expect(chain[2]).toMatchObject({ scope: alpha?.scope, result: { refused: true, by: 'policy', rule: 0 }, content: expect.stringContaining('rule 0 (adder: deny)') });
      expect(alpha?.status).toBe('completed');
      expect(chainOf(snapshot).at(-1)?.content).toContain('Joined:');
    });
  });
}
