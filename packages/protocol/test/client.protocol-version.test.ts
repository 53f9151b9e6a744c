import { describe, expect, it } from 'vitest';
import { ERROR_CODES, InterthoughtError, PROTOCOL_VERSION, isCompatibleProtocol } from '../src/index.js';
import { clientOf, useScriptedServer } from './support/clients.js';
import type { ScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
useScriptedServer((started) => (server = started));

describe('isCompatibleProtocol', () => {
  it('accepts this major version, with or without a minor', () => {
    expect(PROTOCOL_VERSION).toBe('interthought/1');
    for (const protocol of ['interthought/1', 'interthought/1.2', 'interthought/1.0.3']) expect(isCompatibleProtocol(protocol)).toBe(true);
  });

  it('refuses another major version, another protocol, and anything that is not a version', () => {
    for (const protocol of ['interthought/2', 'interthought/10', 'interthought/0.9', 'other/1', 'interthought', 'interthought/', 'interthought/1a', '', 1, null, undefined]) {
      expect(isCompatibleProtocol(protocol)).toBe(false);
    }
  });
});

describe('InterthoughtClient and a server of another protocol version', () => {
  it('refuses it with PROTOCOL_MISMATCH naming both versions, closes, and does not retry', async () => {
    server.protocol = 'interthought/2';
    const client = clientOf(server);
    const states: string[] = [];
    client.onStateChange((state) => states.push(state));
    const refused = await client.connect().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(InterthoughtError);
    expect(refused).toMatchObject({ code: ERROR_CODES.PROTOCOL_MISMATCH, message: expect.stringContaining('"interthought/2"') });
    expect((refused as Error).message).toContain(PROTOCOL_VERSION);
    expect(client.state).toBe('closed');
    expect(client.hello).toBeUndefined();
    // Far longer than the test backoff (5–40 ms): a retrying client would have come back.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.connections).toHaveLength(1);
    await expect.poll(() => server.openConnections()).toHaveLength(0);
    expect(states).toEqual(['connecting', 'closed']);
  });

  it('connects to a server of a later minor version of the same major', async () => {
    server.protocol = 'interthought/1.4';
    const client = clientOf(server);
    await expect(client.connect()).resolves.toMatchObject({ protocol: 'interthought/1.4' });
    expect(client.state).toBe('open');
  });
});
