import { describe, expect, it } from 'vitest';
import { CLIENT_MESSAGE_TYPES, ClientMessageSchema, ERROR_LIMITS, FIELD_LIMITS, parseClientMessage, type ClientMessage } from '../src/index.js';
import { chars, refusal, text } from './support/frames.js';

/** One valid frame per row of the request table of PROTOCOL.md §9 "Client requests", with every optional field filled in. */
const VALID_REQUESTS: Record<ClientMessage['type'], ClientMessage[]> = {
  'session.create': [
    { type: 'session.create', task: 'Plan a 3-day trip to Kyoto' },
    { type: 'session.create', id: 'r1', task: 'Compare two sorting algorithms', agent: 'openai', options: { tokenDelayMs: 0, model: 'gpt-4o-mini', temperature: 0.2, approve: ['calculator'], approvalTimeoutMs: 60_000 } },
    { type: 'session.create', task: 'Convert 3 miles to km', options: { approve: 'all' } },
  ],
  'session.subscribe': [
    { type: 'session.subscribe', sessionId: 's_1' },
    { type: 'session.subscribe', id: 'r2', sessionId: 's_1', afterSeq: 42 },
  ],
  'session.unsubscribe': [{ type: 'session.unsubscribe', id: 'r3', sessionId: 's_1' }],
  'step.correct': [
    { type: 'step.correct', sessionId: 's_1', stepId: 'st_3', content: 'Use the 2023 figures instead.' },
    { type: 'step.correct', id: 'r4', sessionId: 's_1', stepId: 'st_3', content: 'x', note: 'outdated data', baseRevision: 2 },
  ],
  'session.pause': [{ type: 'session.pause', id: 'r5', sessionId: 's_1' }],
  'session.resume': [{ type: 'session.resume', sessionId: 's_1' }],
  'session.cancel': [{ type: 'session.cancel', id: 'r6', sessionId: 's_1' }],
  'subagent.cancel': [{ type: 'subagent.cancel', id: 'r-sub', sessionId: 's_1', scope: 'step_9' }],
  'input.provide': [{ type: 'input.provide', id: 'r-in', sessionId: 's_1', stepId: 'step_9', text: 'The 20.' }],
  'approvals.forget': [
    { type: 'approvals.forget', sessionId: 's_1' },
    { type: 'approvals.forget', id: 'r-fg', sessionId: 's_1', tool: 'calculator' },
  ],
  'session.delete': [
    { type: 'session.delete', sessionId: 's_1' },
    { type: 'session.delete', id: 'r7', sessionId: 's_1' },
  ],
  'sessions.watch': [{ type: 'sessions.watch' }, { type: 'sessions.watch', id: 'r8', limit: 100 }],
  'sessions.unwatch': [{ type: 'sessions.unwatch', id: 'r9' }],
  'session.message': [
    { type: 'session.message', sessionId: 's_1', text: 'Now with 25 %.' },
    { type: 'session.message', id: 'r12', sessionId: 's_1', text: 'Use the 2024 prices.', mode: 'queue' },
  ],
  'session.fork': [{ type: 'session.fork', id: 'r13', sessionId: 's_1', stepId: 'st_2' }],
  'session.share': [
    { type: 'session.share', sessionId: 's_1', role: 'viewer' },
    { type: 'session.share', id: 'r15', sessionId: 's_1', role: 'editor', expiresInSec: 3600 },
  ],
  'session.unshare': [{ type: 'session.unshare', id: 'r16', sessionId: 's_1', shareId: 'sh_1' }],
  'auth.refresh': [
    { type: 'auth.refresh', token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1LWFkYSJ9.c2lnbmF0dXJl' },
    { type: 'auth.refresh', id: 'r14', token: 'x' },
  ],
  'tool.approve': [
    { type: 'tool.approve', sessionId: 's_1', stepId: 'st_4' },
    { type: 'tool.approve', id: 'r10', sessionId: 's_1', stepId: 'st_4' },
  ],
  'tool.reject': [
    { type: 'tool.reject', sessionId: 's_1', stepId: 'st_4' },
    { type: 'tool.reject', id: 'r11', sessionId: 's_1', stepId: 'st_4', reason: 'Not with production data.' },
  ],
};

describe('parseClientMessage: valid requests', () => {
  it('covers every request type of the protocol', () => {
    expect(Object.keys(VALID_REQUESTS).sort()).toEqual([...CLIENT_MESSAGE_TYPES].sort());
  });

  for (const [type, frames] of Object.entries(VALID_REQUESTS)) {
    it(`accepts ${type} and returns it unchanged`, () => {
      for (const frame of frames) {
        expect(parseClientMessage(text(frame))).toEqual({ ok: true, message: frame });
      }
    });
  }

  it('reads frames given as bytes (Uint8Array and ArrayBuffer) as UTF-8 text', () => {
    const bytes = new TextEncoder().encode(text({ type: 'session.create', task: '让智能体做什么？' }));
    expect(parseClientMessage(bytes)).toEqual({ ok: true, message: { type: 'session.create', task: '让智能体做什么？' } });
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    expect(parseClientMessage(buffer).ok).toBe(true);
  });

  it('accepts every field at its length limit', () => {
    const atLimits: ClientMessage[] = [
      { type: 'session.create', id: chars(FIELD_LIMITS.requestIdMax), task: chars(FIELD_LIMITS.taskMax), agent: chars(64) },
      {
        type: 'step.correct',
        sessionId: chars(FIELD_LIMITS.idMax),
        stepId: chars(FIELD_LIMITS.idMax),
        content: chars(FIELD_LIMITS.correctionMax),
        note: chars(FIELD_LIMITS.noteMax),
      },
    ];
    for (const frame of atLimits) expect(parseClientMessage(text(frame)).ok).toBe(true);
  });

  it('counts limits in characters, so 20,000 CJK characters are a valid task', () => {
    expect(parseClientMessage(text({ type: 'session.create', task: chars(FIELD_LIMITS.taskMax, '思') })).ok).toBe(true);
  });
});

describe('parseClientMessage: refused frames', () => {
  it('answers text that is not JSON with BAD_JSON', () => {
    for (const raw of ['', 'hello', '{"type": "session.create"', "{'type':'session.create'}", '{"a":1}}']) {
      const error = refusal(raw);
      expect(error).toMatchObject({ type: 'error', code: 'BAD_JSON' });
      expect(error.requestId).toBeUndefined();
    }
  });

  it('answers binary data that is not UTF-8 with BAD_JSON', () => {
    expect(refusal(new Uint8Array([0xff, 0xfe, 0x7b, 0x7d])).code).toBe('BAD_JSON');
    expect(refusal(new Uint8Array([0x7b, 0xc3, 0x28, 0x7d])).code).toBe('BAD_JSON');
  });

  it('answers JSON that is not an object with BAD_FRAME at the root', () => {
    for (const value of [null, 42, 'session.create', [], [{ type: 'session.create', task: 'x' }], true]) {
      const error = refusal(text(value));
      expect(error.code).toBe('BAD_FRAME');
      expect(error.details).toEqual([{ path: [], message: expect.any(String) }]);
    }
  });

  it('answers a frame without a type string with BAD_FRAME naming "type", and echoes its id', () => {
    expect(refusal(text({ id: 'r9', task: 'x' }))).toMatchObject({ code: 'BAD_FRAME', requestId: 'r9', details: [{ path: ['type'] }] });
    expect(refusal(text({ type: 7 })).details?.[0]?.path).toEqual(['type']);
  });

  it('answers an unknown type with UNKNOWN_TYPE, naming the known ones and echoing the id', () => {
    const error = refusal(text({ type: 'session.rename', id: 'r10', sessionId: 's_1' }));
    expect(error).toMatchObject({ code: 'UNKNOWN_TYPE', requestId: 'r10' });
    expect(error.message).toContain('session.rename');
    for (const type of CLIENT_MESSAGE_TYPES) expect(error.message).toContain(type);
  });

  it('refuses server frame types sent by a client as UNKNOWN_TYPE', () => {
    expect(refusal(text({ type: 'hello' })).code).toBe('UNKNOWN_TYPE');
    expect(refusal(text({ type: 'step.delta', sessionId: 's', seq: 1, at: 'now', stepId: 'a', text: 'b' })).code).toBe('UNKNOWN_TYPE');
  });

  it('shortens a huge unknown type in the message', () => {
    const error = refusal(text({ type: chars(10_000) }));
    expect(error.code).toBe('UNKNOWN_TYPE');
    expect(error.message.length).toBeLessThanOrEqual(ERROR_LIMITS.messageMax);
  });

  it('lists one detail per schema issue, each with its path', () => {
    const error = refusal(text({ type: 'step.correct', id: 'r11', sessionId: '', content: 5, color: 'red' }));
    expect(error.code).toBe('BAD_FRAME');
    expect(error.requestId).toBe('r11');
    const paths = error.details?.map((detail) => detail.path.join('.')).sort();
    expect(paths).toEqual(['color', 'content', 'sessionId', 'stepId']);
    for (const detail of error.details ?? []) expect(detail.message).not.toBe('');
    expect(error.message).toMatch(/^Invalid step\.correct frame: .+ \(and 3 more issues\)$/);
  });

  it('refuses unknown fields, naming each one, at the top level and inside options', () => {
    const error = refusal(text({ type: 'session.create', task: 'x', priority: 1, user: 'me', options: { tokenDelayMs: 5, speed: 'fast' } }));
    expect(error.code).toBe('BAD_FRAME');
    expect(error.details).toEqual(
      expect.arrayContaining([
        { path: ['priority'], message: 'Unknown field "priority"' },
        { path: ['user'], message: 'Unknown field "user"' },
        { path: ['options', 'speed'], message: 'Unknown field "speed"' },
      ]),
    );
    expect(error.details).toHaveLength(3);
  });

  it('echoes the id as requestId only when it is a usable id', () => {
    const bad = { type: 'session.pause', sessionId: '' };
    expect(refusal(text({ ...bad, id: 'abc' })).requestId).toBe('abc');
    expect(refusal(text({ ...bad, id: chars(FIELD_LIMITS.requestIdMax) })).requestId).toBe(chars(FIELD_LIMITS.requestIdMax));
    expect(refusal(text({ ...bad, id: chars(FIELD_LIMITS.requestIdMax + 1) })).requestId).toBeUndefined();
    expect(refusal(text({ ...bad, id: '' })).requestId).toBeUndefined();
    expect(refusal(text({ ...bad, id: 17 })).requestId).toBeUndefined();
    expect(refusal(text({ ...bad, id: { nested: 'x' } })).requestId).toBeUndefined();
  });

  it('refuses an id over 64 characters with a detail at "id"', () => {
    const error = refusal(text({ type: 'session.pause', sessionId: 's', id: chars(65) }));
    expect(error.details).toEqual([{ path: ['id'], message: expect.any(String) }]);
  });
});

describe('parseClientMessage: field limits', () => {
  const cases: Array<{ name: string; frame: Record<string, unknown>; path: Array<string | number> }> = [
    { name: 'an empty task', frame: { type: 'session.create', task: '' }, path: ['task'] },
    { name: 'a task over 20,000 characters', frame: { type: 'session.create', task: chars(FIELD_LIMITS.taskMax + 1) }, path: ['task'] },
    { name: 'an agent name over 64 characters', frame: { type: 'session.create', task: 'x', agent: chars(65) }, path: ['agent'] },
    { name: 'a negative tokenDelayMs', frame: { type: 'session.create', task: 'x', options: { tokenDelayMs: -1 } }, path: ['options', 'tokenDelayMs'] },
    { name: 'a temperature over 2', frame: { type: 'session.create', task: 'x', options: { temperature: 2.5 } }, path: ['options', 'temperature'] },
    { name: 'an empty correction', frame: { type: 'step.correct', sessionId: 's', stepId: 't', content: '' }, path: ['content'] },
    {
      name: 'a correction over 20,000 characters',
      frame: { type: 'step.correct', sessionId: 's', stepId: 't', content: chars(FIELD_LIMITS.correctionMax + 1) },
      path: ['content'],
    },
    {
      name: 'a note over 2,000 characters',
      frame: { type: 'step.correct', sessionId: 's', stepId: 't', content: 'x', note: chars(FIELD_LIMITS.noteMax + 1) },
      path: ['note'],
    },
    { name: 'a fractional baseRevision', frame: { type: 'step.correct', sessionId: 's', stepId: 't', content: 'x', baseRevision: 1.5 }, path: ['baseRevision'] },
    { name: 'a session id over 128 characters', frame: { type: 'session.subscribe', sessionId: chars(FIELD_LIMITS.idMax + 1) }, path: ['sessionId'] },
    { name: 'a step id over 128 characters', frame: { type: 'step.correct', sessionId: 's', stepId: chars(FIELD_LIMITS.idMax + 1), content: 'x' }, path: ['stepId'] },
    { name: 'an empty session id', frame: { type: 'session.cancel', sessionId: '' }, path: ['sessionId'] },
    { name: 'a session.delete without a session id', frame: { type: 'session.delete' }, path: ['sessionId'] },
    { name: 'an afterSeq that is a string', frame: { type: 'session.subscribe', sessionId: 's', afterSeq: '3' }, path: ['afterSeq'] },
    { name: 'a sessions.watch limit over 100', frame: { type: 'sessions.watch', limit: 101 }, path: ['limit'] },
    { name: 'a sessions.watch limit of 0', frame: { type: 'sessions.watch', limit: 0 }, path: ['limit'] },
    { name: 'a fractional sessions.watch limit', frame: { type: 'sessions.watch', limit: 2.5 }, path: ['limit'] },
  ];

  for (const { name, frame, path } of cases) {
    it(`refuses ${name} with BAD_FRAME at ${path.join('.')}`, () => {
      const error = refusal(text({ ...frame, id: 'lim' }));
      expect(error).toMatchObject({ code: 'BAD_FRAME', requestId: 'lim' });
      expect(error.details).toEqual([{ path, message: expect.any(String) }]);
    });
  }

  it('leaves the range of afterSeq to the server (BAD_CURSOR), so a negative one parses', () => {
    expect(parseClientMessage(text({ type: 'session.subscribe', sessionId: 's', afterSeq: -1 })).ok).toBe(true);
  });

  it('names the path inside the union branch a value came closest to: a bad rule of options.approve, not the union', () => {
    const badRule = refusal(text({ type: 'session.create', task: 't', options: { approve: { rules: [{ tool: 'write_file', decision: 'allow' }, { tool: 'write_file', decision: 'maybe' }] } } }));
    expect(badRule).toMatchObject({ code: 'BAD_FRAME', message: expect.stringContaining('options.approve.rules.1.decision') });
    expect(badRule.details).toEqual([{ path: ['options', 'approve', 'rules', 1, 'decision'], message: expect.stringContaining('"deny"') }]);
    const badCondition = refusal(text({ type: 'session.create', task: 't', options: { approve: { rules: [{ tool: 'w', decision: 'deny', when: { path: { below: '/' } } }] } } }));
    expect(badCondition.details?.[0]?.path.slice(0, 6)).toEqual(['options', 'approve', 'rules', 0, 'when', 'path']);
    // No branch came closer than the union itself: its own issue stands.
    expect(refusal(text({ type: 'session.create', task: 't', options: { approve: 42 } })).details).toEqual([{ path: ['options', 'approve'], message: expect.any(String) }]);
  });

  it('keeps the parser and the exported union in agreement', () => {
    const frame = VALID_REQUESTS['step.correct'][1];
    expect(ClientMessageSchema.parse(frame)).toEqual(frame);
  });
});
