import { FIELD_LIMITS, type ClientMessageType } from '@interthought/protocol';
import fc from 'fast-check';

/** One frame a hostile client sends, as it goes on the wire. */
export interface HostileFrame {
  /** The family it was drawn from, named in failure messages. */
  kind: string;
  data: string | Buffer;
  binary: boolean;
}

/** A session no request of the fuzz can find: requests on it are refused, never carried out. */
export const MISSING_SESSION = 'no-such-session';

type Json = Record<string, unknown>;

/**
 * One valid request of every client type, aimed at a missing session, with every optional field
 * set: the wrong-field family breaks exactly one field (or nested field) of one of them. Typed
 * by `ClientMessageType`, so a new request type must be added here.
 */
const TEMPLATES: Record<ClientMessageType, Json> = {
  'session.create': { type: 'session.create', task: 'What is 2 + 2?', agent: 'demo', options: { tokenDelayMs: 0, model: 'm', temperature: 1 } },
  'session.subscribe': { type: 'session.subscribe', sessionId: MISSING_SESSION, afterSeq: 0 },
  'session.unsubscribe': { type: 'session.unsubscribe', sessionId: MISSING_SESSION },
  'step.correct': { type: 'step.correct', sessionId: MISSING_SESSION, stepId: 'no-such-step', content: 'c', note: 'n', baseRevision: 0 },
  'session.pause': { type: 'session.pause', sessionId: MISSING_SESSION },
  'session.resume': { type: 'session.resume', sessionId: MISSING_SESSION },
  'session.cancel': { type: 'session.cancel', sessionId: MISSING_SESSION },
  'session.delete': { type: 'session.delete', sessionId: MISSING_SESSION },
  'sessions.watch': { type: 'sessions.watch', limit: 10 },
  'sessions.unwatch': { type: 'sessions.unwatch' },
  'tool.approve': { type: 'tool.approve', sessionId: MISSING_SESSION, stepId: 'no-such-step', remember: 'session' },
  'session.message': { type: 'session.message', sessionId: MISSING_SESSION, text: 'Add 10 to that.', mode: 'queue' },
  'session.fork': { type: 'session.fork', sessionId: MISSING_SESSION, stepId: 'no-such-step' },
  'tool.reject': { type: 'tool.reject', sessionId: MISSING_SESSION, stepId: 'no-such-step', reason: 'r' },
  'auth.refresh': { type: 'auth.refresh', token: 'not-a-jwt' },
  'session.share': { type: 'session.share', sessionId: MISSING_SESSION, role: 'viewer', expiresInSec: 3_600 },
  'session.unshare': { type: 'session.unshare', sessionId: MISSING_SESSION, shareId: 'no-such-share' },
  'subagent.cancel': { type: 'subagent.cancel', sessionId: MISSING_SESSION, scope: 'no-such-step' },
  'input.provide': { type: 'input.provide', sessionId: MISSING_SESSION, stepId: 'no-such-step', text: 'The 20.' },
  'approvals.forget': { type: 'approvals.forget', sessionId: MISSING_SESSION, tool: 'calculator' },
};
const CLIENT_TYPES = Object.keys(TEMPLATES) as ClientMessageType[];
const SESSION_TARGETED: ClientMessageType[] = ['session.subscribe', 'session.unsubscribe', 'session.pause', 'session.resume', 'session.cancel', 'session.delete', 'tool.approve', 'tool.reject', 'session.message', 'session.fork', 'session.share', 'session.unshare', 'subagent.cancel', 'input.provide', 'approvals.forget'];

/** Every field path of a template, nested ones included. */
function fieldPaths(value: Json, prefix: string[] = []): string[][] {
  return Object.entries(value).flatMap(([key, child]) => {
    const path = [...prefix, key];
    const nested = typeof child === 'object' && child !== null && !Array.isArray(child) ? fieldPaths(child as Json, path) : [];
    return [path, ...nested];
  });
}

/** A copy of `value` with the field at `path` set (or removed, for `undefined`). */
function withField(value: Json, path: readonly string[], field: unknown): Json {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  const copy: Json = { ...value };
  const child = copy[head];
  copy[head] = rest.length === 0 ? field : withField(typeof child === 'object' && child !== null ? (child as Json) : {}, rest, field);
  return copy;
}

const requestId = fc.option(fc.string({ minLength: 1, maxLength: FIELD_LIMITS.requestIdMax }), { freq: 5 });
const template: fc.Arbitrary<Json> = fc.constantFrom(...CLIENT_TYPES).chain((type) => requestId.map((id): Json => (id === null ? { ...TEMPLATES[type] } : { ...TEMPLATES[type], id })));

/** Ids around every length limit (empty, one character, the request-id and server-id limits, far beyond). */
const oddLengthId = fc.oneof(fc.constantFrom(0, 1, 63, 64, 65, 127, 128, 129, 4_000), fc.nat(300)).map((length) => 'i'.repeat(length));
const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude00'];
const oddNumber = fc.oneof(fc.constantFrom(1e308, -1e308, -0, 5e-324, 2 ** 53 + 2, -1, 0.5, 1e21, 2 ** 32), fc.double(), fc.integer());
const oddText = fc.oneof(
  fc.constantFrom('', ' ', 'NaN', '-0', 'Infinity', '-Infinity', '1e308', '0x1F', 'null', 'true', '__proto__', 'constructor', '\u0000', '\ufeff', '%s%n'),
  // `binary` units include lone surrogates, which the frame rules refuse wherever they are.
  fc.string({ unit: 'binary', maxLength: 40 }),
  oddLengthId,
);
const smallJson = fc.jsonValue({ maxDepth: 2 });
/** A value of the wrong type, range or length for some field (or `undefined`: the field is left out). */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  oddNumber,
  oddText,
  fc.constantFrom(null, undefined, true, false),
  fc.array(smallJson, { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 10 }), smallJson, { maxKeys: 5 }),
);

const asText = (kind: string, data: string): HostileFrame => ({ kind, data, binary: false });
const asJson = (kind: string, value: unknown): HostileFrame => asText(kind, JSON.stringify(value) ?? 'null');

const invalidJson = fc.oneof(
  fc.constantFrom('', ' ', '{', '}', '[', 'null,', '{"type":"session.create",}', "{'type':'sessions.watch'}", 'NaN', '{"a":1}{"b":2}', '\ufeff{"type":"sessions.watch"}', '{"type":"sessions.watch"', '{"type":"\\x41"}', '{"type":"\\ud8"}'),
  // Arbitrary text, lone surrogates included (the client's UTF-8 encoder replaces them with U+FFFD).
  fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }),
  template.chain((frame) => {
    const text = JSON.stringify(frame);
    return fc.nat(text.length - 2).map((cut) => text.slice(0, cut + 1));
  }),
).map((data) => asText('invalid-json', data));

const nonObject = fc
  .oneof(fc.integer(), fc.double(), fc.string({ maxLength: 50 }), fc.constantFrom(null, true, false), fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 10 }))
  .map((value) => asJson('non-object', value));

const wrongField = template
  .chain((frame) => fc.tuple(fc.constant(frame), fc.constantFrom(['id'], ...fieldPaths(frame)), oddValue))
  .map(([frame, path, value]) => asJson('wrong-field', withField(frame, path, value)));

const unknownType = fc
  .tuple(
    template,
    fc.oneof(
      fc.constantFrom('session.Create', 'session.create ', 'SESSION.CREATE', 'hello', 'error', 'session.created', 'step.delta', '__proto__', 'constructor', 'session.create\u0000', ''),
      fc.string({ maxLength: 100 }),
      oddValue,
    ),
  )
  .map(([frame, type]) => asJson('unknown-type', { ...frame, type }));

/** Characters that JSON escapes (up to 6 bytes each) or that take 3 or 4 bytes in UTF-8. */
const WIDE_CHARACTERS = ['"', '\\', '\u0001', '\u001f', '\n', '笑', '😀', '\u2028'];

/**
 * Thousands of unknown keys (built from a drawn prefix: drawing each key would make the sample
 * slow) and a few drawn ones; or tens of long keys of characters that are wide on the wire.
 */
const manyUnknownKeys = fc.oneof(
  fc
    .tuple(template, fc.integer({ min: 1, max: 3_000 }), fc.string({ maxLength: 12 }), fc.dictionary(fc.string({ maxLength: 24 }), oddValue, { maxKeys: 8 }))
    .map(([frame, count, prefix, drawn]) => {
      const extra: Json = { ...drawn };
      for (let index = 0; index < count; index += 1) extra[`${prefix}${index}`] = index % 3 === 0 ? null : index;
      return asJson('unknown-keys', { ...extra, ...frame });
    }),
  fc
    .tuple(template, fc.integer({ min: 1, max: 40 }), fc.constantFrom(...WIDE_CHARACTERS), fc.integer({ min: 1, max: 600 }), fc.boolean())
    .map(([frame, count, character, length, inOptions]) => {
      const extra: Json = {};
      for (let index = 0; index < count; index += 1) extra[`${character.repeat(length)}${index}`] = 0;
      return asJson('unknown-keys', inOptions ? { ...frame, options: extra } : { ...extra, ...frame });
    }),
);

/** Nested arrays or objects thousands of levels deep, as a new field or in place of a known one. */
const deepNesting = fc
  .tuple(template, fc.integer({ min: 100, max: 20_000 }), fc.boolean(), fc.constantFrom('deep', 'task', 'sessionId', 'options', 'content', 'limit', 'id', 'type'))
  .map(([frame, depth, arrays, field]) => {
    const nested = arrays ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const { [field]: _replaced, ...rest } = frame;
    return asText('deep-nesting', `${JSON.stringify(rest).slice(0, -1)},"${field}":${nested}}`);
  });

/** A lone surrogate in a string field, in a new key, or escaped by hand in upper case. */
const loneSurrogate = fc
  .tuple(template, fc.constantFrom(...LONE_SURROGATES), fc.constantFrom('task', 'content', 'note', 'sessionId', 'stepId', 'agent', 'id', 'type', 'key', 'escaped'), fc.string({ maxLength: 20 }))
  .map(([frame, lone, where, around]) => {
    if (where === 'escaped') {
      const escape = `\\u${lone.charCodeAt(0).toString(16).toUpperCase()}`;
      return asText('lone-surrogate', `${JSON.stringify(frame).slice(0, -1)},"x":"${around.replace(/["\\]/g, '')}${escape}"}`);
    }
    if (where === 'key') return asJson('lone-surrogate', { ...frame, [`${around}${lone}`]: 1 });
    return asJson('lone-surrogate', { ...frame, [where]: `${around}${lone}${around}` });
  });

/** A field (known, unknown, the id or the type) holding a string that brings the frame close to `maxFrameBytes`. */
function hugeString(maxFrameBytes: number) {
  return fc
    .tuple(template, fc.constantFrom('task', 'content', 'note', 'filler', 'id', 'type', 'sessionId'), fc.constantFrom('x', '笑', '😀', 'é', ' '), fc.integer({ min: 64, max: 4_000 }))
    .map(([frame, field, unit, slack]) => {
      const room = maxFrameBytes - slack - Buffer.byteLength(JSON.stringify({ ...frame, [field]: '' }));
      return asJson('huge-string', { ...frame, [field]: unit.repeat(Math.max(1, Math.floor(room / Buffer.byteLength(unit)))) });
    });
}

/** Well-formed requests on sessions and steps that do not exist, and cursors the live session does not have. */
function missingTargets(liveSessionId: string) {
  return fc.oneof(
    fc.tuple(fc.constantFrom(...SESSION_TARGETED), oddLengthId, requestId).map(([type, sessionId, id]) => ({ type, sessionId, ...(id === null ? {} : { id }) })),
    fc.tuple(oddLengthId, fc.option(fc.nat(5)), requestId).map(([stepId, baseRevision, id]) => ({
      type: 'step.correct',
      sessionId: liveSessionId,
      stepId,
      content: 'a correction of a step that is not there',
      ...(baseRevision === null ? {} : { baseRevision }),
      ...(id === null ? {} : { id }),
    })),
    fc.tuple(fc.constantFrom(-1, 0.5, -0.5, 1e9, 1e308, -1e308, 2 ** 53), requestId).map(([afterSeq, id]) => ({ type: 'session.subscribe', sessionId: liveSessionId, afterSeq, ...(id === null ? {} : { id }) })),
  ).map((frame) => asJson('missing-target', frame));
}

/** Requests a well-behaved client sends, on the live session: they must be carried out as usual. */
function validRequests(liveSessionId: string) {
  return fc
    .tuple(
      fc.oneof(
        fc.constant({ type: 'session.subscribe', sessionId: liveSessionId, afterSeq: 0 }),
        fc.constant({ type: 'session.subscribe', sessionId: liveSessionId }),
        fc.constant({ type: 'session.unsubscribe', sessionId: liveSessionId }),
        fc.option(fc.integer({ min: 1, max: 100 })).map((limit) => (limit === null ? { type: 'sessions.watch' } : { type: 'sessions.watch', limit })),
        fc.constant({ type: 'sessions.unwatch' }),
      ),
      requestId,
    )
    .map(([frame, id]) => asJson('valid', id === null ? frame : { ...frame, id }));
}

const binary = fc
  .oneof(template.map((frame) => Buffer.from(JSON.stringify(frame))), fc.uint8Array({ maxLength: 100 }).map((bytes) => Buffer.from(bytes)))
  .map((data): HostileFrame => ({ kind: 'binary', data, binary: true }));

/**
 * Hostile frames of every family, each within `maxFrameBytes` (a bigger one ends the connection
 * with 1009: see `oversizeFrame`). Requests that would be carried out only ever target
 * `liveSessionId` with reads (subscribe, unsubscribe) or the session list, so the stream of
 * that session must go on undisturbed.
 */
export function hostileFrame(options: { maxFrameBytes: number; liveSessionId: string }): fc.Arbitrary<HostileFrame> {
  return fc
    .oneof(
      { weight: 3, arbitrary: invalidJson },
      { weight: 2, arbitrary: nonObject },
      { weight: 7, arbitrary: wrongField },
      { weight: 2, arbitrary: unknownType },
      { weight: 2, arbitrary: manyUnknownKeys },
      { weight: 1, arbitrary: deepNesting },
      { weight: 3, arbitrary: loneSurrogate },
      { weight: 1, arbitrary: hugeString(options.maxFrameBytes) },
      { weight: 3, arbitrary: missingTargets(options.liveSessionId) },
      { weight: 2, arbitrary: validRequests(options.liveSessionId) },
      { weight: 1, arbitrary: binary },
    )
    .filter((frame) => Buffer.byteLength(frame.data) <= options.maxFrameBytes);
}

/** A request one byte over `maxFrameBytes`: the socket is closed with 1009 before it is read. */
export function oversizeFrame(maxFrameBytes: number): HostileFrame {
  const empty = JSON.stringify({ type: 'session.create', task: '' });
  return asText('oversize', JSON.stringify({ type: 'session.create', task: 'x'.repeat(maxFrameBytes + 1 - Buffer.byteLength(empty)) }));
}
