import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { AGENT_SERVER_MESSAGE_TYPES, AgentServerMessageSchema, WORKER_MESSAGE_TYPES, WorkerMessageSchema } from '../src/index.js';
import { SCHEMA_FILES } from '../scripts/schema-documents.js';

const packageDir = join(import.meta.dirname, '..');

describe('agent wire schemas', () => {
  it('accept the worker frames of the spec transcript', () => {
    const frames = [
      { type: 'agent.register', id: '1', agents: [{ name: 'py-math', description: 'Arithmetic' }] },
      { type: 'step.start', runId: 'r', ref: 'a', kind: 'tool_call', tool: 'shell' },
      { type: 'step.delta', runId: 'r', ref: 'a', text: '{}' },
      { type: 'step.end', runId: 'r', ref: 'a', result: { stdout: '48' } },
      { type: 'usage', runId: 'r', model: 'm', usage: { inputTokens: 1, outputTokens: 2 }, refs: ['a'] },
      { type: 'notice', runId: 'r', detail: 'retrying' },
      { type: 'tool.run', id: 't1', runId: 'r', tool: 'calculator', input: { expression: '6*7' } },
      { type: 'run.end', runId: 'r' },
      { type: 'run.fail', runId: 'r', message: 'boom' },
    ];
    for (const frame of frames) expect(WorkerMessageSchema.safeParse(frame).success, frame.type).toBe(true);
    expect(new Set(frames.map((frame) => frame.type))).toEqual(new Set(WORKER_MESSAGE_TYPES));
  });

  it('refuse worker frames with unknown fields, user_message steps or a tool.run without an id', () => {
    const frames = [
      { type: 'run.end', runId: 'r', extra: 1 },
      { type: 'step.start', runId: 'r', ref: 'a', kind: 'user_message' },
      { type: 'tool.run', runId: 'r', tool: 'calculator', input: {} },
      { type: 'step.delta', runId: '', ref: 'a', text: 'x' },
      { type: 'agent.register', agents: [] },
    ];
    for (const frame of frames) expect(WorkerMessageSchema.safeParse(frame).success, JSON.stringify(frame)).toBe(false);
  });

  it('tolerate unknown fields on server frames', () => {
    const frame = { type: 'flow', runId: 'r', paused: true, since: 'later' };
    expect(AgentServerMessageSchema.safeParse(frame).success).toBe(true);
    expect(AGENT_SERVER_MESSAGE_TYPES).toContain('run.start');
  });

  it('are the generated JSON Schema: it accepts and refuses the same frames', () => {
    const fromFile = z.fromJSONSchema(JSON.parse(readFileSync(join(packageDir, SCHEMA_FILES.agentWireJsonSchema), 'utf8')));
    const frames: unknown[] = [
      { type: 'run.end', runId: 'r' },
      { type: 'run.end', runId: 'r', extra: 1 },
      { type: 'run.start', runId: 'r', sessionId: 's', agent: 'a', task: 't', chain: [], options: {} },
      { type: 'step.delta', runId: 'r', ref: 'a' },
      { type: 'nope' },
    ];
    const zodVerdict = (frame: unknown) => WorkerMessageSchema.safeParse(frame).success || AgentServerMessageSchema.safeParse(frame).success;
    for (const frame of frames) expect(fromFile.safeParse(frame).success, JSON.stringify(frame)).toBe(zodVerdict(frame));
  });
});
