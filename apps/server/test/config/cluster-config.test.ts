import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { ClusterConfigError, readClusterConfig } from '../../src/config/cluster-config.js';
import { problemsOf } from './support/problems.js';

describe('cluster mode', () => {
  it('is off without INTERTHOUGHT_REDIS_URL, whatever the other cluster variables say', () => {
    expect(loadConfig({}).cluster).toBeUndefined();
    expect(loadConfig({ INTERTHOUGHT_REDIS_URL: ' ', INTERTHOUGHT_NODE_ID: 'a' }).cluster).toBeUndefined();
  });

  it('reads the Redis address, node name and lease timing', () => {
    expect(loadConfig({ INTERTHOUGHT_REDIS_URL: 'redis://cache:6379/2', INTERTHOUGHT_NODE_ID: 'node-a', INTERTHOUGHT_LEASE_TTL_MS: '5000', INTERTHOUGHT_SWEEP_MS: '250' }).cluster).toEqual({
      redisUrl: 'redis://cache:6379/2',
      nodeId: 'node-a',
      leaseTtlMs: 5_000,
      sweepMs: 250,
    });
  });

  it('names an unnamed node with a random id, and uses the default lease timing', () => {
    const cluster = readClusterConfig({ INTERTHOUGHT_REDIS_URL: 'unix:///run/redis.sock' });
    expect(cluster).toMatchObject({ redisUrl: 'unix:///run/redis.sock', leaseTtlMs: 3_000, sweepMs: 1_000 });
    expect(cluster?.nodeId).toMatch(/^node-[0-9a-f]{8}$/);
  });

  it('refuses a Redis address that is not redis://, rediss:// or unix:///, without showing it', () => {
    expect(problemsOf({ INTERTHOUGHT_REDIS_URL: 'http://secret@cache:6379' })).toEqual([
      { variable: 'INTERTHOUGHT_REDIS_URL', problem: 'must be redis://host:port/db, rediss://… or unix:///path/to/redis.sock' },
    ]);
  });

  it('refuses a node name with other characters, and lease timing out of range', () => {
    expect(problemsOf({ INTERTHOUGHT_NODE_ID: 'node a' })).toEqual([{ variable: 'INTERTHOUGHT_NODE_ID', problem: 'must be 1 to 64 letters, digits, ".", "_" or "-", got "node a"' }]);
    expect(problemsOf({ INTERTHOUGHT_LEASE_TTL_MS: '100' })[0]).toEqual({ variable: 'INTERTHOUGHT_LEASE_TTL_MS', problem: 'must be a whole number from 300 to 600000, got "100"' });
    expect(problemsOf({ INTERTHOUGHT_SWEEP_MS: 'often' })[0]?.variable).toBe('INTERTHOUGHT_SWEEP_MS');
  });

  it('throws its own error when read alone', () => {
    expect(() => readClusterConfig({ INTERTHOUGHT_NODE_ID: 'x'.repeat(65) })).toThrow(ClusterConfigError);
  });
});
