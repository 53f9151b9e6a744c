import { describe, expect, it } from 'vitest';
import { ConnectionsPerAddress, RunStartBudget, addressKey } from '../../src/transport/address-quotas.js';
import { BriefWarnings, briefError } from '../../src/transport/brief-warnings.js';

describe('addressKey', () => {
  it('keeps IPv4 as is and folds an IPv4-mapped IPv6 address into it', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('keys IPv6 by its /64, however it is written', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
  });
});

describe('ConnectionsPerAddress', () => {
  it('counts sockets per address up to the cap and frees a place on close', () => {
    const connections = new ConnectionsPerAddress(2);
    expect([connections.tryOpen('a'), connections.tryOpen('a'), connections.tryOpen('a'), connections.tryOpen('b')]).toEqual([true, true, false, true]);
    expect(connections.hasRoom('a')).toBe(false);
    connections.closed('a');
    expect(connections.hasRoom('a')).toBe(true);
    connections.closed('a');
    connections.closed('b');
    expect(connections.addresses).toBe(0);
  });
});

describe('RunStartBudget', () => {
  it('holds one address to its minute’s worth, then refills at the per-minute rate, without touching another address', () => {
    let now = 0;
    const budget = new RunStartBudget(3, 1_000, () => now);
    expect(['a', 'a', 'a', 'a'].map((key) => budget.take(key))).toEqual(['ok', 'ok', 'ok', 'own']);
    expect(budget.take('b')).toBe('ok');
    now += 20_000; // a third of a minute: one more start for a
    expect([budget.take('a'), budget.take('a')]).toEqual(['ok', 'own']);
  });

  it('holds every address together to the server’s budget', () => {
    let now = 0;
    const budget = new RunStartBudget(100, 4, () => now);
    expect(['a', 'b', 'c', 'd', 'e'].map((key) => budget.take(key))).toEqual(['ok', 'ok', 'ok', 'ok', 'server']);
  });

  it('forgets addresses idle for a minute, so the map holds only active ones', () => {
    let now = 0;
    const budget = new RunStartBudget(10, 1_000, () => now);
    for (let index = 0; index < 50; index += 1) budget.take(`10.0.0.${index}`);
    expect(budget.trackedAddresses).toBe(50);
    now += 61_000;
    budget.take('10.0.1.1');
    expect(budget.trackedAddresses).toBe(1);
  });
});

describe('BriefWarnings', () => {
  it('logs at most the window’s share of one kind, then one line saying how many were left out', () => {
    let now = 0;
    const lines: { fields: object; message: string }[] = [];
    const warnings = new BriefWarnings({ warn: (fields, message) => lines.push({ fields, message }) }, 3, 10_000, () => now);
    for (let index = 0; index < 1_000; index += 1) warnings.warn('websocket-error', { index }, 'websocket error');
    warnings.warn('rate-limit-close', {}, 'closed');
    expect(lines).toHaveLength(4);
    now += 10_000;
    warnings.warn('websocket-error', { index: 'next' }, 'websocket error');
    expect(lines.slice(4).map((line) => line.message)).toEqual(['997 more "websocket-error" warnings were not logged in the last 10 s', 'websocket error']);
  });

  it('reduces an error to one line without its stack', () => {
    const error = Object.assign(new RangeError('Max payload size exceeded'), { code: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' });
    expect(briefError(error)).toBe('RangeError WS_ERR_UNSUPPORTED_MESSAGE_LENGTH: Max payload size exceeded');
    expect(briefError(error)).not.toContain('\n');
  });
});
