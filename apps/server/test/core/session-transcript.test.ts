import { createSessionState, type SessionInfo, type Step } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { isKnownTimeZone, sessionTranscript, type TranscriptReader } from '../../src/core/transfer/session-transcript.js';

const AT = '2026-12-01T10:00:00.000Z';
const info: SessionInfo = { sessionId: 's1', task: '240 的 15% 是多少？', agent: 'demo', status: 'completed', revision: 1, createdAt: AT };

/** A chain of steps, each the child of the one before. */
function chainOf(...steps: Pick<Step, 'stepId' | 'kind' | 'status' | 'content' | 'tool' | 'result' | 'approval' | 'correction'>[]): Step[] {
  return steps.map((step, index): Step => ({ ...step, parentId: index === 0 ? null : steps[index - 1]!.stepId, index, revision: 0 }));
}

function transcriptOf(
  steps: Step[],
  session: Partial<SessionInfo> = {},
  queued?: { stepId: string; text: string; mode: 'steer' | 'queue'; at: string }[],
  reader?: TranscriptReader,
): string {
  return sessionTranscript(
    createSessionState({ session: { ...info, ...session }, steps, chain: steps.map((step) => step.stepId), seq: 9, ...(queued === undefined ? {} : { queued }) }),
    reader,
  );
}

describe('sessionTranscript', () => {
  it('writes the user’s messages as their turns and keeps Chinese text as it is', () => {
    const text = transcriptOf(
      chainOf(
        { stepId: 'a', kind: 'final_answer', status: 'completed', content: '240 的 15% 是 36。' },
        { stepId: 'u', kind: 'user_message', status: 'completed', content: '再加 10 呢？' },
        { stepId: 'b', kind: 'final_answer', status: 'completed', content: '36 + 10 = 46。' },
      ),
    );
    expect(text).toBe(
      [
        '# 240 的 15% 是多少？',
        '_Session s1 · agent demo · started Dec 1, 2026, 10:00:00 AM · times in UTC_',
        '### Step 1 · Answer',
        '240 的 15% 是 36。',
        '**You:** 再加 10 呢？',
        '### Step 3 · Answer',
        '36 + 10 = 46。',
        '---',
        '**Status:** completed',
      ].join('\n\n') + '\n',
    );
  });

  it('notes a timeout as not approved in time, a pending call as waiting, and an edit as edited and approved', () => {
    const text = transcriptOf(
      chainOf(
        { stepId: 't1', kind: 'tool_call', status: 'completed', tool: 'calculator', content: 'not json', approval: { state: 'rejected', by: 'server', at: AT, reason: 'timed out' } },
        { stepId: 'o1', kind: 'observation', status: 'completed', tool: 'calculator', content: 'The calculator call was not approved in time, so it was not run.', result: { refused: true, by: 'server', reason: 'timed out' } },
        { stepId: 't2', kind: 'tool_call', status: 'corrected', tool: 'calculator', content: '{"expression":"1+1"}', approval: { state: 'edited', by: 'c_1', at: AT }, correction: { previousContent: '{"expression":"1+2"}', at: AT, by: 'c_1' } },
        { stepId: 't3', kind: 'tool_call', status: 'completed', tool: 'calculator', content: '{"expression":"2+2"}', approval: { state: 'pending', requestedAt: AT } },
      ),
      { status: 'waiting', detail: 'Waiting for approval: calculator' },
    );
    const when = 'Dec 1, 2026, 10:00:00 AM';
    expect(text).toContain(`\`\`\`\nnot json\n\`\`\`\n\n> **Not approved in time**: timed out at ${when}; the tool did not run.`);
    expect(text).toContain('> **Refused**: the tool did not run, because no decision was made in time.');
    // Without users every connection is the reader: "you", never the connection id.
    expect(text).toContain(`> **Corrected** by you at ${when}.\n>\n> The earlier text:\n>\n> \`\`\`json\n> {\n>   "expression": "1+2"\n> }\n> \`\`\``);
    expect(text).toContain(`> **Edited before it ran** and approved by you at ${when}.`);
    expect(text).toContain(`> **Waiting for approval** since ${when}: the tool has not run.`);
    expect(text).not.toContain('c_1');
    expect(text).not.toContain(AT);
    expect(text.endsWith('**Status:** waiting (Waiting for approval: calculator)\n')).toBe(true);
  });

  it('fences text with backticks so nothing closes it early, and marks a step still being written', () => {
    const text = transcriptOf(chainOf({ stepId: 't', kind: 'tool_call', status: 'streaming', tool: 'shell', content: '```' }), { status: 'failed', error: 'the model went away' });
    expect(text).toContain('````\n```\n````\n\n_(still being written)_');
    expect(text).toContain('**Status:** failed — the model went away');
  });

  it('titles a long or many-line task on one line and gives it in full as the first turn; shows a kind it does not know by name', () => {
    const task = `First line\nsecond line ${'x'.repeat(200)}`;
    const text = transcriptOf(chainOf({ stepId: 'p', kind: 'plan' as Step['kind'], status: 'completed', content: 'a plan' }), { task }, [{ stepId: 'q', text: 'and then?', mode: 'queue', at: AT }]);
    const [title] = text.split('\n');
    expect(title).toMatch(/^# First line second line x+…$/);
    expect(title!.length).toBeLessThanOrEqual(2 + 120);
    expect(text).toContain(`**You:** ${task}`);
    expect(text).toContain('### Step 1 · plan\n\na plan');
    expect(text).toContain('**Waiting to reach the chain:**\n\n- (queue) and then?');
  });

  it('writes times in the reader’s zone and its words in Chinese, and the fork’s step by number', () => {
    const steps = chainOf(
      { stepId: 'a', kind: 'thought', status: 'completed', content: '先算 15%。' },
      { stepId: 'b', kind: 'final_answer', status: 'corrected', content: '36', correction: { previousContent: '35', at: AT, by: 'c_219LnytGXEyH', note: '算错了' } },
    ).map((step, index) => ({ ...step, copiedFrom: { sessionId: 'src', stepId: index === 0 ? '-2UxOxYqN2vHPA3uvkTl5' : 'x' } }));
    const text = transcriptOf(steps, { forkedFrom: { sessionId: 'src', stepId: '-2UxOxYqN2vHPA3uvkTl5' } }, undefined, { timeZone: 'Asia/Shanghai', lang: 'zh' });
    expect(text).toContain('分叉自会话 src 的第 1 步');
    expect(text).toContain('时间为 Asia/Shanghai');
    expect(text).toContain('### 第 1 步 · 思考');
    expect(text).toContain('> **已修正**：由你于 2026年12月1日 18:00:00。说明：“算错了”');
    expect(text).toContain('**状态：** 已完成');
    expect(text).not.toContain('c_219LnytGXEyH');
    expect(text).not.toContain('-2UxOxYqN2vHPA3uvkTl5');
  });

  it('names other users, share-link holders and the reader as such when the server has users', () => {
    const steps = chainOf(
      { stepId: 'u', kind: 'user_message', status: 'completed', content: 'Go on.' },
      { stepId: 't', kind: 'tool_call', status: 'completed', tool: 'calculator', content: '{}', approval: { state: 'approved', by: 'u-bob', byName: 'Bob', at: AT } },
      { stepId: 'f', kind: 'final_answer', status: 'corrected', content: '36', correction: { previousContent: '35', at: AT, by: 'share:sh_1' } },
    ).map((step) => (step.kind === 'user_message' ? { ...step, by: 'u-ada', byName: 'Ada' } : step));
    const text = transcriptOf(steps, {}, undefined, { timeZone: 'Europe/Berlin', reader: { userId: 'u-ada' } });
    expect(text).toContain('**You:** Go on.');
    expect(text).toContain('> **Approved** by Bob at Dec 1, 2026, 11:00:00 AM.');
    expect(text).toContain('> **Corrected** by someone with a share link at Dec 1, 2026, 11:00:00 AM.');
    expect(text).toContain('times in Europe/Berlin');
  });

  it('knows IANA zones and refuses made-up ones', () => {
    expect(isKnownTimeZone('Europe/Berlin')).toBe(true);
    expect(isKnownTimeZone('UTC')).toBe(true);
    expect(isKnownTimeZone('Mars/Olympus_Mons')).toBe(false);
  });
});
