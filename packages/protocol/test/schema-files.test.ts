import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ANSWER_TYPES, CLIENT_MESSAGE_TYPES, ClientMessageSchema, SERVER_MESSAGE_TYPES, ServerMessageSchema } from '../src/index.js';
import { CLIENT_MESSAGES, SERVER_MESSAGES } from '../scripts/schema-catalog.js';
import { SCHEMA_FILES, buildAsyncApi, buildJsonSchema, renderSchemaFiles } from '../scripts/schema-documents.js';

const packageDir = join(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
type Json = Record<string, unknown>;

/** Every `$ref` in a document. */
function refsOf(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsOf(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.push(inner);
      else refsOf(inner, found);
    }
  }
  return found;
}

/** Follow a local JSON pointer (`#/a/b`). */
function resolve(document: unknown, pointer: string): unknown {
  return pointer
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Json)[key] : undefined), document);
}

describe('generated schema files', () => {
  it('are current: regenerating them gives the checked-in text (run `pnpm --filter @interthought/protocol generate`)', () => {
    for (const [path, text] of Object.entries(renderSchemaFiles(version))) {
      expect(readFileSync(join(packageDir, path), 'utf8'), `${path} is stale`).toBe(text);
    }
  });

  it('name one definition for every client and server message', () => {
    const { $defs } = buildJsonSchema(version) as { $defs: Json };
    for (const type of CLIENT_MESSAGE_TYPES) expect($defs).toHaveProperty(CLIENT_MESSAGES[type].id);
    for (const type of SERVER_MESSAGE_TYPES) expect($defs).toHaveProperty(SERVER_MESSAGES[type].id);
    expect($defs).toHaveProperty('ClientMessage');
    expect($defs).toHaveProperty('ServerMessage');
  });

  it('resolve every $ref within their own document', () => {
    for (const document of [buildJsonSchema(version), buildAsyncApi(version)]) {
      const refs = refsOf(document);
      expect(refs.length).toBeGreaterThan(20);
      for (const ref of refs) expect(resolve(document, ref), ref).toBeDefined();
    }
  });

  it('accept and refuse the same frames as the zod schemas they come from', () => {
    const fromFile = z.fromJSONSchema(JSON.parse(readFileSync(join(packageDir, SCHEMA_FILES.jsonSchema), 'utf8')));
    const frames: unknown[] = [
      { type: 'session.create', task: 'Plan a trip', options: { tokenDelayMs: 0 } },
      { type: 'session.create', task: '' },
      { type: 'session.create', task: 'x', colour: 'red' },
      { type: 'step.correct', id: 'r1', sessionId: 's', stepId: 't', content: 'fixed', baseRevision: 1 },
      { type: 'step.correct', sessionId: 's', stepId: 't', content: 'x'.repeat(20_001) },
      { type: 'session.subscribe', sessionId: 's', afterSeq: 3 },
      { type: 'step.delta', sessionId: 's', seq: 4, at: '2025-01-01T00:00:00Z', stepId: 't', text: 'hi', addedLater: true },
      { type: 'step.delta', sessionId: 's', seq: 0, at: 'now', stepId: 't', text: 'hi' },
      { type: 'error', code: 'BAD_FRAME', message: 'x', details: [{ path: ['task', 0], message: 'y' }] },
      { type: 'session.snapshot', session: { sessionId: 's', task: 't', agent: 'demo', status: 'running', revision: 0, createdAt: 'now' }, steps: [], chain: [], seq: 0 },
      { type: 'session.status', sessionId: 's', seq: 1, at: 'now', status: 'sleeping' },
      { type: 'session.delete', id: 'r2', sessionId: 's' },
      { type: 'session.delete', sessionId: 's', force: true },
      { type: 'session.deleted', sessionId: 's', seq: 9, at: '2025-01-01T00:00:00Z', requestId: 'r2' },
      { type: 'session.deleted', sessionId: 's', seq: 0, at: 'now' },
      { type: 'nope' },
    ];
    const zodVerdict = (frame: unknown) => ClientMessageSchema.safeParse(frame).success || ServerMessageSchema.safeParse(frame).success;
    for (const frame of frames) expect(fromFile.safeParse(frame).success, JSON.stringify(frame).slice(0, 80)).toBe(zodVerdict(frame));
  });

  it('describe /ws in AsyncAPI 3.0: every message on the channel, one receive operation per request replied to by its answers', () => {
    const doc = buildAsyncApi(version) as Json & { channels: { interthought: Json & { messages: Json } }; operations: Record<string, Json> };
    expect(doc.asyncapi).toBe('3.0.0');
    expect(doc.channels.interthought.address).toBe('/ws');
    const ids = [...Object.values(CLIENT_MESSAGES), ...Object.values(SERVER_MESSAGES)].map(({ id }) => id);
    expect(Object.keys(doc.channels.interthought.messages).sort()).toEqual([...ids].sort());
    for (const type of CLIENT_MESSAGE_TYPES) {
      const operation = doc.operations[CLIENT_MESSAGES[type].id] as { action: string; reply: { messages: Array<{ $ref: string }> } };
      expect(operation.action).toBe('receive');
      const replies = operation.reply.messages.map(({ $ref }) => $ref.split('/').at(-1));
      expect(replies).toEqual([...ANSWER_TYPES[type].map((answer) => SERVER_MESSAGES[answer].id), 'ErrorFrame']);
    }
    const sent = Object.values(doc.operations)
      .filter((operation) => operation.action === 'send')
      .flatMap((operation) => (operation.messages as Array<{ $ref: string }>).map(({ $ref }) => $ref.split('/').at(-1)));
    expect(sent).toEqual(expect.arrayContaining(['Hello', 'StepDeltaEvent', 'StepsInvalidatedEvent']));
  });

  it('use in AsyncAPI payloads only keywords that draft-07 (its default schema format) also has', () => {
    const text = JSON.stringify(buildAsyncApi(version));
    for (const keyword of ['prefixItems', 'unevaluatedProperties', '$dynamicRef', 'dependentSchemas', '$defs', '$schema']) {
      expect(text).not.toContain(`"${keyword}"`);
    }
  });
});
