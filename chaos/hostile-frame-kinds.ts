import type { SeededRandom } from '../apps/server/test/support/seeded-random.js';

/** The families of hostile frames the chaos run sends. */
export const ANSWERED_KINDS = [
  'invalid-json',
  'wrong-types',
  'huge-string',
  'unknown-type',
  'lone-surrogate',
  'deep-nesting',
  'binary',
  'prototype-keys',
  'unknown-session',
] as const;

/** Kinds that end the connection with a documented close instead of an `error` frame. */
export const CLOSING_KINDS = ['oversize', 'invalid-utf8'] as const;

export type HostileKind = (typeof ANSWERED_KINDS)[number] | (typeof CLOSING_KINDS)[number];

/** One frame to send, and the close that may answer it instead of an `error` frame. */
export interface HostileFrame {
  kind: HostileKind;
  data: string | Buffer;
  binary: boolean;
  /** 1009 for a frame over the size limit; 1007 for text that is not UTF-8 (RFC 6455 §7.4.1). */
  closes?: number;
}

/** Requests with every field they need; hostile frames break one of them. */
const TEMPLATES: Record<string, Record<string, unknown>> = {
  'session.create': { type: 'session.create', task: 'What is 15% of 240?' },
  'session.subscribe': { type: 'session.subscribe', sessionId: 'x', afterSeq: 0 },
  'session.pause': { type: 'session.pause', sessionId: 'x' },
  'session.resume': { type: 'session.resume', sessionId: 'x' },
  'session.cancel': { type: 'session.cancel', sessionId: 'x' },
  'session.delete': { type: 'session.delete', sessionId: 'x' },
  'step.correct': { type: 'step.correct', sessionId: 'x', stepId: 'y', content: '{"expression":"1+1"}', baseRevision: 0 },
};

/** Values that are the wrong type (or out of range) for any field of the templates. */
const WRONG_VALUES: unknown[] = [123, -1, 1.5, 1e308, true, false, null, [], [1, 2], {}, { nested: { deeper: [] } }];

const PRINTABLE = ' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~';
const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff', '\ud83d'];

function randomText(random: SeededRandom, length: number, alphabet = PRINTABLE): string {
  let text = '';
  for (let i = 0; i < length; i++) text += alphabet[random.int(0, alphabet.length - 1)];
  return text;
}

/** A session id no session has: requests on it are refused with SESSION_NOT_FOUND. */
function unknownSessionId(random: SeededRandom): string {
  return `nosuch${randomText(random, 15, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}`;
}

/** A template aimed at an unknown session, so no hostile frame can touch a real one. */
function template(random: SeededRandom): Record<string, unknown> {
  const chosen = { ...random.pick(Object.values(TEMPLATES)) };
  if ('sessionId' in chosen) chosen.sessionId = unknownSessionId(random);
  if (random.chance(0.5)) chosen.id = `h${random.int(0, 1e6)}`;
  return chosen;
}

function invalidJson(random: SeededRandom): string {
  const valid = JSON.stringify(template(random));
  return random.pick([
    () => valid.slice(0, random.int(1, valid.length - 1)),
    () => `${valid.slice(0, -1)},}`,
    () => valid.replaceAll('"', "'"),
    () => `${valid}${valid}`,
    () => randomText(random, random.int(1, 300)),
    () => random.pick(['', ' ', 'undefined', 'NaN', '{', '}', '[', '"', '\\', '{"type":}', '{"type":"session.create","task":"x"']),
  ])();
}

function wrongTypes(random: SeededRandom): string {
  const frame = template(random);
  if (random.chance(0.15)) return JSON.stringify(random.pick<unknown>([null, 42, 'session.create', [frame], true]));
  const field = random.pick(Object.keys(frame).filter((key) => key !== 'id'));
  frame[field] = random.pick(WRONG_VALUES);
  return JSON.stringify(frame);
}

/** A string field as long as the frame limit allows (in bytes), so every length check runs at its worst. */
function hugeString(random: SeededRandom, maxFrameBytes: number): string {
  const room = maxFrameBytes - 200 - random.int(0, 2_000);
  const variant = random.int(0, 4);
  if (variant === 4) {
    // Thousands of unknown keys: the error must not grow with them.
    const frame: Record<string, unknown> = { type: 'session.create', task: 'x' };
    for (let i = 0; (i + 1) * 12 < room; i++) frame[`k${i}`] = 0;
    return JSON.stringify(frame);
  }
  // A task over the limit in characters (ASCII, so it stays within the frame in bytes).
  if (variant === 0) return JSON.stringify({ type: 'session.create', task: 'x'.repeat(room) });
  const multibyte = random.chance(0.3);
  const text = multibyte ? '字'.repeat(Math.floor(room / 3)) : 'x'.repeat(room);
  const frame = template(random);
  if (variant === 1) return JSON.stringify({ ...frame, sessionId: text });
  if (variant === 2) return JSON.stringify({ ...frame, id: text });
  return JSON.stringify({ type: text });
}

function unknownType(random: SeededRandom): string {
  const type = random.pick([
    '',
    'hello',
    'session.created',
    'session.snapshot',
    'error',
    '__proto__',
    'constructor',
    'toString',
    'session.create ',
    'SESSION.CREATE',
    'session',
    `session.${randomText(random, 8, 'abcdefghijklmnopqrstuvwxyz')}`,
    randomText(random, random.int(1, 100)),
  ]);
  return JSON.stringify({ ...template(random), type });
}

function loneSurrogate(random: SeededRandom): string {
  const lone = random.pick(LONE_SURROGATES);
  const at = (text: string) => {
    const cut = random.int(0, text.length);
    return `${text.slice(0, cut)}${lone}${text.slice(cut)}`;
  };
  // JSON.stringify writes a lone surrogate as a \uXXXX escape: valid JSON, not valid Unicode text.
  return random.pick([
    () => JSON.stringify({ type: 'session.create', task: at('What is 15% of 240?'), agent: 'demo' }),
    () => JSON.stringify({ type: 'session.subscribe', sessionId: at(unknownSessionId(random)), afterSeq: 0 }),
    () => JSON.stringify({ type: 'step.correct', sessionId: unknownSessionId(random), stepId: 'y', content: at('{"expression":"1+1"}') }),
    () => JSON.stringify({ type: at('session.create'), task: 'x' }),
    () => JSON.stringify({ type: 'session.pause', id: at('r1'), sessionId: unknownSessionId(random) }),
    () => JSON.stringify({ type: 'session.create', task: 'x', [at('key')]: 1 }),
  ])();
}

function deepNesting(random: SeededRandom, maxFrameBytes: number): string {
  const depth = random.int(100, Math.floor((maxFrameBytes - 200) / 6));
  const arrays = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const objects = `${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`;
  return random.pick([
    () => `{"type":"session.create","task":"x","options":${arrays}}`,
    () => `{"type":"session.create","task":"x","options":${objects}}`,
    () => `{"type":"session.subscribe","sessionId":${arrays},"afterSeq":0}`,
    () => arrays,
    () => objects,
  ])();
}

function binary(random: SeededRandom): Buffer {
  if (random.chance(0.5)) return Buffer.from(JSON.stringify(template(random)));
  return Buffer.from(Array.from({ length: random.int(1, 512) }, () => random.int(0, 255)));
}

function prototypeKeys(random: SeededRandom): string {
  const base = JSON.stringify(template(random)).slice(0, -1);
  return random.pick([
    `${base},"__proto__":{"agent":"firehose","polluted":true}}`,
    `${base},"constructor":{"prototype":{"polluted":true}}}`,
    `{"__proto__":{"type":"session.create"},"task":"x"}`,
    `{"type":"session.create","task":"x","options":{"__proto__":{"tokenDelayMs":0}}}`,
  ]);
}

function unknownSession(random: SeededRandom): string {
  const frame = template(random);
  if (frame.type === 'session.create') return JSON.stringify({ ...frame, agent: `no-such-agent-${random.int(0, 99)}` });
  if (frame.type === 'session.subscribe') frame.afterSeq = random.pick([0, -1, 0.5, 1e308, 2 ** 53, 7]);
  return JSON.stringify(frame);
}

/** A frame just over the size limit: the server closes with 1009 before reading it. */
function oversize(random: SeededRandom, maxFrameBytes: number): string {
  return `{"type":"session.create","task":"${'x'.repeat(maxFrameBytes + random.int(1, 4_096))}"}`;
}

/** Text bytes that are not UTF-8 (a lone surrogate's raw bytes among them). */
function invalidUtf8(random: SeededRandom): Buffer {
  const bad = random.pick([[0xed, 0xa0, 0x80], [0xff], [0xc3], [0xe2, 0x28, 0xa1], [0xf8, 0x88, 0x80, 0x80, 0x80]]);
  return Buffer.concat([Buffer.from('{"type":"session.create","task":"'), Buffer.from(bad), Buffer.from('"}')]);
}

/** Build one hostile frame of `kind`. */
export function hostileFrame(random: SeededRandom, kind: HostileKind, maxFrameBytes: number): HostileFrame {
  switch (kind) {
    case 'invalid-json':
      return { kind, data: invalidJson(random), binary: false };
    case 'wrong-types':
      return { kind, data: wrongTypes(random), binary: false };
    case 'huge-string':
      return { kind, data: hugeString(random, maxFrameBytes), binary: false };
    case 'unknown-type':
      return { kind, data: unknownType(random), binary: false };
    case 'lone-surrogate':
      return { kind, data: loneSurrogate(random), binary: false };
    case 'deep-nesting':
      return { kind, data: deepNesting(random, maxFrameBytes), binary: false };
    case 'binary':
      return { kind, data: binary(random), binary: true };
    case 'prototype-keys':
      return { kind, data: prototypeKeys(random), binary: false };
    case 'unknown-session':
      return { kind, data: unknownSession(random), binary: false };
    case 'oversize':
      return { kind, data: oversize(random, maxFrameBytes), binary: false, closes: 1009 };
    case 'invalid-utf8':
      return { kind, data: invalidUtf8(random), binary: false, closes: 1007 };
  }
}
