import type { LoggedSessionEvent, SessionInfo, SessionSnapshotData, Step } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { ImportError, importedSession, parseImport } from '../../src/core/transfer/session-import.js';

const AT = '2026-12-01T10:00:00.000Z';
const NOW = '2026-12-02T09:00:00.000Z';
const info: SessionInfo = { sessionId: 's1', task: 'What is 2 + 2?', agent: 'demo', status: 'running', revision: 0, createdAt: AT };

function step(stepId: string, parentId: string | null, index: number, extra: Partial<Step> = {}): Step {
  return { stepId, parentId, index, kind: 'thought', status: 'completed', content: `text of ${stepId}`, revision: 0, ...extra };
}

function ndjson(...lines: object[]): string {
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

const header = { type: 'interthought.export', version: 1, session: { ...info, status: 'completed' }, options: { approve: 'all' } };

function refusal(text: string): ImportError {
  try {
    parseImport(text, NOW);
  } catch (error) {
    if (error instanceof ImportError) return error;
    throw error;
  }
  throw new Error('the import was accepted');
}

describe('parseImport of a log that starts from a snapshot', () => {
  // The chain a → b2 (b2 corrected b, which is invalidated), the head c streaming, one message queued.
  const snapshot: SessionSnapshotData = {
    session: { ...info, status: 'paused', revision: 1 },
    steps: [
      step('a', null, 0),
      step('b', 'a', 1, { status: 'invalidated' }),
      step('b2', 'a', 1, { status: 'corrected', revision: 1, correctionOf: 'b', correction: { previousContent: 'text of b', at: AT } }),
      step('c', 'b2', 2, { status: 'streaming', content: 'par', revision: 1 }),
    ],
    chain: ['a', 'b2', 'c'],
    seq: 40,
    queued: [{ stepId: 'm1', text: 'And then?', mode: 'queue', at: AT }],
  };
  const kept: LoggedSessionEvent[] = [
    { type: 'step.delta', sessionId: 's1', seq: 41, at: AT, stepId: 'c', text: 'tial' },
    { type: 'step.delta', sessionId: 's1', seq: 43, fromSeq: 42, at: AT, stepId: 'c', text: ' text' },
    { type: 'step.completed', sessionId: 's1', seq: 44, at: AT, stepId: 'c', content: 'partial text' },
  ];

  it('rebuilds the chain with fresh events (status, copy, queued messages), then moves the kept events after them', () => {
    const parsed = parseImport(ndjson(header, { type: 'session.snapshot', ...snapshot }, ...kept), NOW);
    const [status, copied, queued, ...rest] = parsed.events;
    expect(status).toEqual({ type: 'session.status', sessionId: 's1', seq: 1, at: NOW, status: 'paused' });
    expect(copied).toMatchObject({ type: 'steps.copied', seq: 2, at: NOW, from: { sessionId: 's1', stepId: 'c' } });
    // The copies keep their ids and content; correctionOf names a step of the earlier branch, which is not kept.
    const { correctionOf: _replaced, ...b2 } = snapshot.steps[2]!;
    expect(copied?.type === 'steps.copied' && copied.steps).toEqual([snapshot.steps[0], b2, snapshot.steps[3]]);
    expect(queued).toEqual({ type: 'message.queued', sessionId: 's1', seq: 3, at: AT, stepId: 'm1', text: 'And then?', mode: 'queue' });
    expect(rest).toEqual([
      { ...kept[0], seq: 4 },
      { ...kept[1], seq: 6, fromSeq: 5 },
      { ...kept[2], seq: 7 },
    ]);
    expect(parsed.state.seq).toBe(7);
    expect(parsed.state.chain).toEqual(['a', 'b2', 'c']);
    expect(parsed.state.steps.has('b')).toBe(false);
    expect(parsed.state.steps.get('c')).toMatchObject({ content: 'partial text', status: 'completed' });
    expect(parsed.state.queued).toEqual(snapshot.queued);
    expect(parsed.state.session).toMatchObject({ sessionId: 's1', status: 'paused' });
  });

  it('checks the kept events against the seqs they were exported with', () => {
    const error = refusal(ndjson(header, { type: 'session.snapshot', ...snapshot }, { ...kept[0], seq: 42 }));
    expect(error).toMatchObject({ line: 3, message: expect.stringContaining('Expected seq 41 but got 42') });
  });

  it('refuses a snapshot of another session, or whose chain names a step it does not have, on line 2', () => {
    expect(refusal(ndjson(header, { type: 'session.snapshot', ...snapshot, session: { ...snapshot.session, sessionId: 's2' } }, ...kept))).toMatchObject({ line: 2 });
    expect(refusal(ndjson(header, { type: 'session.snapshot', ...snapshot, chain: ['a', 'zz'] }, ...kept))).toMatchObject({ line: 2, message: expect.stringContaining('zz') });
    // A chain whose steps do not follow one another does not fold.
    expect(refusal(ndjson(header, { type: 'session.snapshot', ...snapshot, chain: ['a', 'c'] }, ...kept))).toMatchObject({ line: 2, message: expect.stringContaining('does not fit') });
  });
});

describe('importedSession', () => {
  const events: LoggedSessionEvent[] = [
    { type: 'session.status', sessionId: 's1', seq: 1, at: AT, status: 'running' },
    { type: 'step.started', sessionId: 's1', seq: 2, at: AT, step: step('a', null, 0, { status: 'streaming', content: '' }) },
    { type: 'session.status', sessionId: 's1', seq: 3, at: AT, status: 'paused', detail: 'held' },
  ];

  it('stamps every event with the new id, keeps the step ids, and marks a paused session interrupted with one more event', () => {
    const stored = importedSession(parseImport(ndjson(header, ...events), NOW), 'new', NOW);
    expect(stored.batch.events).toEqual([
      ...events.map((event) => ({ ...event, sessionId: 'new' })),
      { type: 'session.status', sessionId: 'new', seq: 4, at: NOW, status: 'interrupted' },
    ]);
    expect(stored.batch.frames).toEqual(stored.batch.events.map((event) => JSON.stringify(event)));
    expect(stored.record).toEqual({ info: { ...info, sessionId: 'new', status: 'interrupted' }, options: { approve: 'all' }, lastSeq: 0 });
    expect(stored.batch.summaries).toEqual([stored.record.info]);
    expect(stored.state.steps.get('a')).toMatchObject({ status: 'streaming' });
  });

  it('takes the task, agent and creation time from the header, and the status, revision and error from the fold', () => {
    const failed: LoggedSessionEvent = { type: 'session.status', sessionId: 's1', seq: 4, at: AT, status: 'failed', error: 'boom' };
    const stored = importedSession(parseImport(ndjson({ ...header, session: { ...header.session, status: 'completed', revision: 7 } }, ...events, failed), NOW), 'new', NOW);
    expect(stored.record.info).toEqual({ ...info, sessionId: 'new', status: 'failed', error: 'boom', revision: 0 });
    expect(stored.batch.events).toHaveLength(4);
  });
});
