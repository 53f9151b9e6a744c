import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAPABILITIES, HelloSchema } from '../src/index.js';

const repositoryReadme = join(import.meta.dirname, '..', '..', '..', 'README.md');

describe('capabilities', () => {
  it('are what the README’s wscat transcript shows the server saying in its hello', () => {
    // Later transcripts shorten the hello (`< {"type":"hello", …}`): the whole one is the one that parses.
    const hellos = readFileSync(repositoryReadme, 'utf8')
      .split('\n')
      .filter((text) => text.startsWith('< {"type":"hello"'))
      .flatMap((text) => {
        try {
          return [HelloSchema.parse(JSON.parse(text.slice(2)))];
        } catch {
          return [];
        }
      });
    expect(hellos.length, 'README.md has no whole wscat line with the hello').toBeGreaterThan(0);
    for (const hello of hellos) expect(hello.capabilities).toEqual([...CAPABILITIES]);
  });

  it('are read whatever a newer server adds: an unknown capability is kept, for clients to ignore', () => {
    const hello = { type: 'hello', protocol: 'interthought/1', serverVersion: '9', connectionId: 'c_1', limits: { maxFrameBytes: 1, maxTaskChars: 1, maxCorrectionChars: 1, maxSessionsPerConnection: 1, maxSubscriptionsPerConnection: 1, requestsPerSecond: 1, requestBurst: 1 } };
    expect(HelloSchema.parse({ ...hello, capabilities: [...CAPABILITIES, 'telepathy'] }).capabilities).toEqual([...CAPABILITIES, 'telepathy']);
  });
});
