import { connect } from 'node:net';

/** A RESP reply: simple strings and bulk strings as strings, integers as numbers, nil as null, arrays nested. */
export type RedisReply = string | number | null | RedisReply[];

/** An error reply (`-ERR …`). */
export class RedisReplyError extends Error {
  override readonly name = 'RedisReplyError';
}

/** Where the parser stopped: the value, and the offset after it; undefined while the reply is incomplete. */
type Parsed = { value: RedisReply | RedisReplyError; end: number } | undefined;

function parseAt(buffer: Buffer, at: number): Parsed {
  const lineEnd = buffer.indexOf('\r\n', at);
  if (lineEnd < 0) return undefined;
  const line = buffer.toString('utf8', at + 1, lineEnd);
  const next = lineEnd + 2;
  switch (String.fromCharCode(buffer[at] ?? 0)) {
    case '+':
      return { value: line, end: next };
    case '-':
      return { value: new RedisReplyError(line), end: next };
    case ':':
      return { value: Number(line), end: next };
    case '$': {
      const length = Number(line);
      if (length < 0) return { value: null, end: next };
      if (buffer.length < next + length + 2) return undefined;
      return { value: buffer.toString('utf8', next, next + length), end: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { value: null, end: next };
      const items: RedisReply[] = [];
      let end = next;
      for (let index = 0; index < count; index++) {
        const item = parseAt(buffer, end);
        if (item === undefined) return undefined;
        if (item.value instanceof RedisReplyError) return item;
        items.push(item.value);
        end = item.end;
      }
      return { value: items, end };
    }
    default:
      return { value: new RedisReplyError(`Not a RESP reply: ${line.slice(0, 80)}`), end: next };
  }
}

/**
 * Send one command to the Redis on a unix socket and resolve with its reply, on a connection of
 * its own (the bench asks Redis a few questions per run, never on a hot path).
 */
export function redisCommand(socket: string, args: readonly string[], timeoutMs = 5_000): Promise<RedisReply> {
  return new Promise((resolve, reject) => {
    const connection = connect(socket);
    let received = Buffer.alloc(0);
    const finish = (outcome: () => void) => {
      connection.destroy();
      outcome();
    };
    connection.setTimeout(timeoutMs, () => finish(() => reject(new Error(`Redis did not answer ${args[0]} within ${timeoutMs} ms.`))));
    connection.on('error', (error) => finish(() => reject(error)));
    connection.on('connect', () => connection.write(`*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`));
    connection.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseAt(received, 0);
      if (parsed === undefined) return;
      const { value } = parsed;
      finish(() => (value instanceof RedisReplyError ? reject(value) : resolve(value)));
    });
  });
}
