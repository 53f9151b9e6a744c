import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_DB, REPO_ROOT, loadConfig } from '../../src/config/index.js';
import { StoreOpenError } from '../../src/store/sqlite-event-store.js';
import { openConfiguredStore, storeLocation, storeRefusal } from '../../src/config/store-from-config.js';

function problemOf(env: Record<string, string>): { variable: string; problem: string } | undefined {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems[0];
    throw error;
  }
  return undefined;
}

describe('INTERTHOUGHT_DB', () => {
  it('defaults to data/interthought.db at the repository root, whatever the working directory', () => {
    expect(loadConfig({}).db).toBe(DEFAULT_DB);
    expect(DEFAULT_DB).toBe(join(REPO_ROOT, 'data', 'interthought.db'));
    expect(existsSync(join(dirname(dirname(DEFAULT_DB)), 'pnpm-workspace.yaml'))).toBe(true);
  });

  it('keeps an absolute path, resolves a relative one from the repository root, and allows :memory:', () => {
    expect(loadConfig({ INTERTHOUGHT_DB: '/var/lib/interthought/sessions.db' }).db).toBe('/var/lib/interthought/sessions.db');
    expect(loadConfig({ INTERTHOUGHT_DB: 'var/sessions.db' }).db).toBe(join(REPO_ROOT, 'var', 'sessions.db'));
    expect(loadConfig({ INTERTHOUGHT_DB: ' :memory: ' }).db).toBe(':memory:');
    expect(loadConfig({ INTERTHOUGHT_DB: '  ' }).db).toBe(DEFAULT_DB);
  });
});

describe('INTERTHOUGHT_RETAIN_EVENTS', () => {
  it('keeps every event when unset, and reads a whole number', () => {
    expect(loadConfig({}).retainEventsPerSession).toBeUndefined();
    expect(loadConfig({ INTERTHOUGHT_RETAIN_EVENTS: '' }).retainEventsPerSession).toBeUndefined();
    expect(loadConfig({ INTERTHOUGHT_RETAIN_EVENTS: '500' }).retainEventsPerSession).toBe(500);
  });

  for (const bad of ['0', '-5', '2.5', 'lots']) {
    it(`refuses ${JSON.stringify(bad)}, naming the variable and the value`, () => {
      expect(problemOf({ INTERTHOUGHT_RETAIN_EVENTS: bad })).toEqual({
        variable: 'INTERTHOUGHT_RETAIN_EVENTS',
        problem: `must be a whole number from 1 to 1000000000, or unset, got ${JSON.stringify(bad)}`,
      });
    });
  }
});

describe('the configured store', () => {
  it('opens SQLite with the configured retention, and says where sessions live', async () => {
    const store = openConfiguredStore({ db: ':memory:', retainEventsPerSession: 40 });
    try {
      expect(store.settings()).toMatchObject({ path: ':memory:', retainEventsPerSession: 40 });
      expect(storeLocation(store)).toBe('Sessions are kept in memory only (INTERTHOUGHT_DB=:memory:): they are lost when the server stops.');
    } finally {
      await store.close();
    }
    expect(storeLocation({ path: '/srv/sessions.db' })).toBe('Sessions are stored in /srv/sessions.db');
  });

  it('words a refusal as one paragraph that says how to choose another file', () => {
    const error = new StoreOpenError('NOT_A_DATABASE', '/srv/notes.db', '/srv/notes.db is not an Interthought database (file is not a database).\nPoint the server at another file.');
    expect(storeRefusal(error)).toBe(
      'Interthought cannot start: it cannot use its session database. /srv/notes.db is not an Interthought database (file is not a database). ' +
        'Point the server at another file. Set INTERTHOUGHT_DB to another file, or to :memory: to keep sessions in memory only.',
    );
  });
});
