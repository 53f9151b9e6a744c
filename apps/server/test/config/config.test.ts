import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { problemsOf } from './support/problems.js';

describe('loadConfig defaults', () => {
  it('uses the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      allowedOrigins: undefined,
      token: undefined,
      tokenDelayMs: 35,
      maxFrameBytes: 65_536,
      ratePerSec: 20,
      rateBurst: 40,
      maxSessionsPerConnection: 20,
      maxSessions: 1_000,
      maxSubscriptionsPerConnection: 50,
      heartbeatMs: 30_000,
      softBufferBytes: 262_144,
      hardBufferBytes: 1_048_576,
      allowedHosts: undefined,
      maxConnectionsPerAddress: 64,
      maxActiveSessionsPerAddress: 100,
      runStartsPerMinutePerAddress: 120,
      runStartsPerMinute: 2_400,
      pausedRunTtlMs: 900_000,
      logLevel: 'info',
    });
  });

  it('resolves the web build folder from the server package', () => {
    expect(loadConfig({}).webDir.replaceAll('\\', '/')).toMatch(/apps\/web\/build$/);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', INTERTHOUGHT_TOKEN: '', ALLOWED_ORIGINS: ' ' })).toMatchObject({ port: 3000, token: undefined, allowedOrigins: undefined });
  });
});

describe('loadConfig values', () => {
  it('reads every variable', () => {
    const config = loadConfig({
      HOST: '0.0.0.0',
      PORT: '0',
      ALLOWED_ORIGINS: 'https://interthought.example, http://localhost:5173/',
      INTERTHOUGHT_TOKEN: 'correct-horse-battery',
      INTERTHOUGHT_TOKEN_DELAY_MS: '0',
      INTERTHOUGHT_MAX_SUBAGENT_DEPTH: '2',
      INTERTHOUGHT_WEB_DIR: '/srv/ui',
      INTERTHOUGHT_MAX_FRAME_BYTES: '4096',
      INTERTHOUGHT_RATE_PER_SEC: '2.5',
      INTERTHOUGHT_RATE_BURST: '5',
      INTERTHOUGHT_MAX_SESSIONS_PER_CONNECTION: '3',
      INTERTHOUGHT_MAX_SESSIONS: '10',
      INTERTHOUGHT_MAX_SUBSCRIPTIONS_PER_CONNECTION: '4',
      INTERTHOUGHT_HEARTBEAT_MS: '500',
      INTERTHOUGHT_DB: '/srv/interthought/sessions.db',
      INTERTHOUGHT_RETAIN_EVENTS: '500',
      INTERTHOUGHT_SOFT_BUFFER_BYTES: '8192',
      INTERTHOUGHT_HARD_BUFFER_BYTES: '65536',
      INTERTHOUGHT_ALLOWED_HOSTS: 'Thought.Example.com, intranet',
      INTERTHOUGHT_MAX_CONNECTIONS_PER_ADDRESS: '8',
      INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_ADDRESS: '6',
      INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_ADDRESS: '30',
      INTERTHOUGHT_RUN_STARTS_PER_MINUTE: '300',
      INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_USER: '4',
      INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_USER: '12',
      INTERTHOUGHT_LOGIN_URL: 'https://login.example.com/start/',
      INTERTHOUGHT_PUBLIC_URL: 'https://interthought.example.com',
      INTERTHOUGHT_SHARE_SECRET: 'a-share-secret-of-at-least-32-characters',
      INTERTHOUGHT_PAUSED_RUN_TTL_MS: '60000',
      INTERTHOUGHT_AGENT_TOKENS: 'worker-one, worker-two',
      INTERTHOUGHT_AGENT_MAX_FRAME_BYTES: '32768',
      INTERTHOUGHT_AGENT_MAX_STEP_CHARS: '5000',
      INTERTHOUGHT_AGENT_MAX_RUNS_PER_WORKER: '8',
      INTERTHOUGHT_AGENT_FRAMES_PER_SEC: '500',
      INTERTHOUGHT_AGENT_FRAME_BURST: '900',
      INTERTHOUGHT_AGENT_MAX_QUEUED_FRAMES: '64',
      INTERTHOUGHT_AGENT_HEARTBEAT_MS: '2000',
      LOG_LEVEL: 'WARN',
    });
    expect(config).toEqual({
      host: '0.0.0.0',
      port: 0,
      allowedOrigins: ['https://interthought.example', 'http://localhost:5173'],
      token: 'correct-horse-battery',
      tokenDelayMs: 0,
      maxSubagentDepth: 2,
      webDir: '/srv/ui',
      maxFrameBytes: 4096,
      ratePerSec: 2.5,
      rateBurst: 5,
      maxSessionsPerConnection: 3,
      maxSessions: 10,
      maxSubscriptionsPerConnection: 4,
      heartbeatMs: 500,
      db: '/srv/interthought/sessions.db',
      retainEventsPerSession: 500,
      softBufferBytes: 8_192,
      hardBufferBytes: 65_536,
      burstBudgetBytes: 16 * 1024 * 1024,
      allowedHosts: ['thought.example.com', 'intranet'],
      maxConnectionsPerAddress: 8,
      maxActiveSessionsPerAddress: 6,
      runStartsPerMinutePerAddress: 30,
      runStartsPerMinute: 300,
      maxActiveSessionsPerUser: 4,
      runStartsPerMinutePerUser: 12,
      loginUrl: 'https://login.example.com/start',
      publicUrl: 'https://interthought.example.com',
      shareSecret: 'a-share-secret-of-at-least-32-characters',
      pausedRunTtlMs: 60_000,
      agentTokens: ['worker-one', 'worker-two'],
      agentMaxFrameBytes: 32_768,
      agentMaxStepChars: 5_000,
      agentMaxRunsPerWorker: 8,
      agentFramesPerSecond: 500,
      agentFrameBurst: 900,
      agentMaxQueuedFrames: 64,
      agentHeartbeatMs: 2_000,
      logLevel: 'warn',
    });
  });
});

describe('loadConfig errors', () => {
  it('reads INTERTHOUGHT_APPROVE as all, none or tool names, and refuses anything else', () => {
    expect(loadConfig({}).defaultApprove).toBeUndefined();
    expect(loadConfig({ INTERTHOUGHT_APPROVE: 'all' }).defaultApprove).toBe('all');
    expect(loadConfig({ INTERTHOUGHT_APPROVE: ' none ' }).defaultApprove).toBe('none');
    expect(loadConfig({ INTERTHOUGHT_APPROVE: 'calculator, unit_converter' }).defaultApprove).toEqual(['calculator', 'unit_converter']);
    const [problem] = problemsOf({ INTERTHOUGHT_APPROVE: 'x'.repeat(65) });
    expect(problem).toMatchObject({ variable: 'INTERTHOUGHT_APPROVE', problem: expect.stringContaining('"all", "none" or a comma-separated list') });
  });

  it('reads INTERTHOUGHT_APPROVE rules given as JSON (PROTOCOL.md §25.4)', () => {
    const rules = { rules: [{ tool: 'write_file', decision: 'allow', when: { path: { under: '/workspace' } } }, { tool: 'write_file', decision: 'deny' }], default: 'allow' };
    expect(loadConfig({ INTERTHOUGHT_APPROVE: ` ${JSON.stringify(rules)} ` }).defaultApprove).toEqual(rules);
  });

  it('refuses INTERTHOUGHT_APPROVE rules that are not JSON, or not valid rules, naming the path inside them and the reason', () => {
    const [notJson] = problemsOf({ INTERTHOUGHT_APPROVE: '{"rules":[' });
    expect(notJson).toMatchObject({ variable: 'INTERTHOUGHT_APPROVE', problem: expect.stringContaining('must be JSON rules such as {"rules":') });
    const [badDecision] = problemsOf({ INTERTHOUGHT_APPROVE: JSON.stringify({ rules: [{ tool: 'calculator', decision: 'allow' }, { tool: 'write_file', decision: 'maybe' }] }) });
    expect(badDecision?.variable).toBe('INTERTHOUGHT_APPROVE');
    expect(badDecision?.problem).toMatch(/^are not valid approval rules: rules\.1\.decision: /);
    const [badCondition] = problemsOf({ INTERTHOUGHT_APPROVE: JSON.stringify({ rules: [{ tool: 'write_file', decision: 'allow', when: { path: { below: '/w' } } }] }) });
    expect(badCondition?.problem).toContain('rules.0.when.path');
    const [noRules] = problemsOf({ INTERTHOUGHT_APPROVE: JSON.stringify({ rules: [], default: 'deny' }) });
    expect(noRules?.problem).toContain('rules: ');
    expect(noRules?.problem).toContain('default: ');
  });

  it('refuses an allowed host with a scheme or a port', () => {
    expect(problemsOf({ INTERTHOUGHT_ALLOWED_HOSTS: 'https://thought.example.com' })[0]?.variable).toBe('INTERTHOUGHT_ALLOWED_HOSTS');
    expect(problemsOf({ INTERTHOUGHT_ALLOWED_HOSTS: 'thought.example.com:3000' })[0]?.problem).toContain('without scheme or port');
  });

  it('names PORT and shows the bad value', () => {
    expect(problemsOf({ PORT: 'eighty' })).toEqual([{ variable: 'PORT', problem: 'must be a whole number from 0 to 65535, got "eighty"' }]);
  });

  it('refuses a port out of range', () => {
    expect(problemsOf({ PORT: '70000' })[0]?.problem).toContain('from 0 to 65535');
  });

  it('refuses fractions and negatives for whole-number limits', () => {
    expect(problemsOf({ INTERTHOUGHT_RATE_BURST: '1.5' })[0]?.variable).toBe('INTERTHOUGHT_RATE_BURST');
    expect(problemsOf({ INTERTHOUGHT_TOKEN_DELAY_MS: '-1' })[0]?.variable).toBe('INTERTHOUGHT_TOKEN_DELAY_MS');
  });

  it('refuses a rate that is not a positive number', () => {
    expect(problemsOf({ INTERTHOUGHT_RATE_PER_SEC: '0' })).toEqual([
      { variable: 'INTERTHOUGHT_RATE_PER_SEC', problem: 'must be a number above 0 and at most 100000, got "0"' },
    ]);
  });

  it('names the entry of ALLOWED_ORIGINS that is not an origin', () => {
    const [problem] = problemsOf({ ALLOWED_ORIGINS: 'https://ok.example,ftp://files.example' });
    expect(problem?.variable).toBe('ALLOWED_ORIGINS');
    expect(problem?.problem).toContain('"ftp://files.example" is not an origin');
  });

  it('refuses an origin with a path', () => {
    expect(problemsOf({ ALLOWED_ORIGINS: 'https://ok.example/app' })[0]?.problem).toContain('is not an origin');
  });

  it('refuses a hard buffer cap that is not above the soft cap', () => {
    expect(problemsOf({ INTERTHOUGHT_SOFT_BUFFER_BYTES: '65536', INTERTHOUGHT_HARD_BUFFER_BYTES: '65536' })).toEqual([
      { variable: 'INTERTHOUGHT_HARD_BUFFER_BYTES', problem: 'must be above INTERTHOUGHT_SOFT_BUFFER_BYTES (65536), got 65536' },
    ]);
  });

  it('refuses a soft buffer cap below 1 KiB', () => {
    expect(problemsOf({ INTERTHOUGHT_SOFT_BUFFER_BYTES: '512' })[0]?.variable).toBe('INTERTHOUGHT_SOFT_BUFFER_BYTES');
  });

  it('refuses an unknown log level and lists the valid ones', () => {
    expect(problemsOf({ LOG_LEVEL: 'loud' })[0]).toEqual({
      variable: 'LOG_LEVEL',
      problem: 'must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    });
  });

  it('refuses a weak token without echoing it', () => {
    const [problem] = problemsOf({ INTERTHOUGHT_TOKEN: 'abc' });
    expect(problem?.variable).toBe('INTERTHOUGHT_TOKEN');
    expect(problem?.problem).not.toContain('abc');
  });

  it('reports every bad variable at once in one readable message', () => {
    let message = '';
    try {
      loadConfig({ PORT: 'x', INTERTHOUGHT_MAX_FRAME_BYTES: '10' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'Invalid configuration:\n' +
        '  PORT: must be a whole number from 0 to 65535, got "x"\n' +
        '  INTERTHOUGHT_MAX_FRAME_BYTES: must be a whole number from 1024 to 16777216, got "10"',
    );
  });
});
