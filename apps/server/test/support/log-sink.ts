import { Writable } from 'node:stream';

/** Collects every log line an app writes (pass `stream` as the logger's stream). */
export function logSink(): { lines: string[]; stream: Writable; text(): string } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, stream, text: () => lines.join('') };
}
