import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useDurableScope } from './support/durable-scope.js';
import { spawnServerProcess, startDurableServer, type TempFolder } from './support/durable-server.js';

let folder: TempFolder;
useDurableScope((made) => (folder = made));

/** What the operator must see: one paragraph on stderr naming the file, no stack trace, nothing on stdout. */
function expectOneParagraph(stderr: string, stdout: string): void {
  expect(stderr).toMatch(/^Interthought cannot start: it cannot use its session database\. [^\n]+\n$/);
  expect(stderr).not.toMatch(/\bat .+:\d+:\d+/);
  expect(stderr).toContain('Set INTERTHOUGHT_DB to another file, or to :memory: to keep sessions in memory only.');
  expect(stdout).toBe('');
}

describe('start-up with a database file it cannot use', () => {
  it('refuses a file another server process is using, naming that process, and leaves the first one serving', async () => {
    const file = folder.file('shared.db');
    const first = await startDurableServer({ INTERTHOUGHT_DB: file });
    const second = spawnServerProcess({ INTERTHOUGHT_DB: file });
    expect(await second.exited).toBe(1);
    expectOneParagraph(second.stderr(), second.stdout());
    expect(second.stderr()).toContain(`${file} is in use by another Interthought server (pid ${first.child.pid})`);

    const health = await fetch(`${first.url}/api/health`);
    expect(health.status).toBe(200);
    expect(await first.stop()).toBe(0);
    // Once the first server has stopped, the file is free again.
    const third = await startDurableServer({ INTERTHOUGHT_DB: file });
    expect(third.stdout()).toContain(`Sessions are stored in ${file}\n`);
  });

  it('refuses a file that is not a database, and leaves it untouched', async () => {
    const file = folder.file('notes.db');
    const text = 'These are my notes, not a database. '.repeat(200);
    writeFileSync(file, text);
    const server = spawnServerProcess({ INTERTHOUGHT_DB: file });
    expect(await server.exited).toBe(1);
    expectOneParagraph(server.stderr(), server.stdout());
    expect(server.stderr()).toContain(`${file} is not an Interthought database`);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('refuses a path that is a folder', async () => {
    const path = folder.file('a-folder');
    mkdirSync(path);
    const server = spawnServerProcess({ INTERTHOUGHT_DB: path });
    expect(await server.exited).toBe(1);
    expectOneParagraph(server.stderr(), server.stdout());
    expect(server.stderr()).toContain(`${path} is a directory, not a database file.`);
  });

  it('creates the file and its folder on first start, and says where it is', async () => {
    const file = folder.file('nested/deeper/sessions.db');
    const server = await startDurableServer({ INTERTHOUGHT_DB: file });
    expect(server.stdout()).toContain(`Sessions are stored in ${file}\n`);
    expect(readFileSync(file).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\u0000');
  });
});
