import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as source from '../src/index.js';
import { CLIENT_MESSAGE_TYPES, ERROR_CODES, ERROR_LIMITS, FIELD_LIMITS, PROTOCOL_VERSION, SERVER_MESSAGE_TYPES } from '../src/index.js';

const packageDir = join(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
  version: string;
  main: string;
  types: string;
  exports: Record<string, string | Record<string, string>>;
  files: string[];
  dependencies: Record<string, string>;
};

/** Every file path the manifest points at. */
const targets = (): string[] => [
  manifest.main,
  manifest.types,
  ...Object.values(manifest.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target))),
];

const normalise = (path: string): string => path.replace(/^\.\//, '');

describe('the published package (after `pnpm --filter @interthought/protocol build`)', () => {
  it('has every file its exports, main and types point at', () => {
    for (const target of targets()) expect(existsSync(join(packageDir, target)), `${target} is missing: run the build`).toBe(true);
  });

  it('ships every exported file through "files"', () => {
    for (const target of targets().map(normalise)) {
      const shipped = target === 'package.json' || manifest.files.some((entry) => target === entry || target.startsWith(`${entry}/`));
      expect(shipped, target).toBe(true);
    }
  });

  it('depends on zod only, with no workspace-only specifiers', () => {
    expect(manifest.dependencies).toEqual({ zod: expect.stringMatching(/^\d+\.\d+\.\d+$/) });
  });

  it('exports from its build exactly what its sources export', async () => {
    const built = (await import(join(packageDir, 'dist/index.js'))) as Record<string, unknown>;
    expect(Object.keys(built).sort()).toEqual(Object.keys(source).sort());
    expect(typeof built.InterthoughtClient).toBe('function');
    expect(typeof built.SessionMirror).toBe('function');
  });

  it('packs dist, schema, README, CHANGELOG and the PROTOCOL.md spec and nothing else (npm pack --dry-run)', () => {
    const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: packageDir, encoding: 'utf8' });
    const [pack] = JSON.parse(output) as Array<{ files: Array<{ path: string }> }>;
    const paths = pack!.files.map((file) => file.path);
    expect(paths).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'PROTOCOL.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'schema/asyncapi.json', 'schema/interthought.schema.json']));
    for (const path of paths) expect(path).toMatch(/^(dist\/.+\.(js|d\.ts)|schema\/.+\.json|README\.md|CHANGELOG\.md|PROTOCOL\.md|package\.json)$/);
  });
});

describe('the PROTOCOL.md spec it ships', () => {
  const spec = readFileSync(join(packageDir, 'PROTOCOL.md'), 'utf8');
  /** Section number → title, from the `## §N Title` and `### §N.M Title` headings. */
  const sections = new Map([...spec.matchAll(/^#{2,3} §(\d+(?:\.\d+)?) (.+)$/gm)].map((match) => [match[1]!, match[2]!.trim()]));

  it('is marked with the protocol version and the package version', () => {
    expect(spec.split('\n', 1)[0]).toContain(`\`${PROTOCOL_VERSION}\``);
    expect(spec).toContain(`\`@interthought/protocol\` ${manifest.version}`);
  });

  it('numbers its sections §1, §2 … in order, so code can cite them', () => {
    const top = [...sections.keys()].filter((number) => !number.includes('.'));
    expect(top).toEqual(top.map((_, i) => String(i + 1)));
  });

  it('refers only to sections it has', () => {
    for (const [, number] of spec.matchAll(/§(\d+(?:\.\d+)?)/g)) expect(sections.has(number!), `§${number}`).toBe(true);
  });

  it('specifies every request, every server frame and every error code', () => {
    for (const type of CLIENT_MESSAGE_TYPES) expect([...sections.values()], type).toContain(`\`${type}\``);
    for (const type of SERVER_MESSAGE_TYPES.filter((t) => t !== 'hello' && t !== 'sessions.changed' && t !== 'sessions.removed')) {
      expect([...sections.values()], type).toContain(`\`${type}\``);
    }
    for (const type of ['hello', 'sessions.changed', 'sessions.removed']) expect(spec, type).toContain(`{"type":"${type}"`);
    for (const code of Object.values(ERROR_CODES)) expect(spec, code).toMatch(new RegExp(`^\\| \`${code}\` \\|`, 'm'));
  });

  it('states the limits the package enforces', () => {
    expect(spec).toContain(`at most **${ERROR_LIMITS.detailsMax}** \`details\``);
    expect(spec).toContain(`at most **${ERROR_LIMITS.messageMax}**`);
    expect(spec).toContain(`at most **${ERROR_LIMITS.pathMax}** segments`);
    expect(spec).toContain(`at most **${ERROR_LIMITS.pathSegmentMax}** characters`);
    const thousands = (n: number): string => n.toLocaleString('en-US');
    expect(spec).toContain(`| \`id\` | 1–${FIELD_LIMITS.requestIdMax} characters |`);
    expect(spec).toContain(`| \`session.create.task\` | 1–${thousands(FIELD_LIMITS.taskMax)} characters |`);
    expect(spec).toContain(`| \`step.correct.content\` | 1–${thousands(FIELD_LIMITS.correctionMax)} characters |`);
    expect(spec).toContain(`| \`step.correct.note\` | at most ${thousands(FIELD_LIMITS.noteMax)} characters |`);
  });

  it('is cited by the code with section numbers and titles it has', () => {
    const repoRoot = join(packageDir, '..', '..');
    const found = execFileSync('git', ['grep', '-h', '-o', '-E', 'PROTOCOL\\.md §[0-9.]+ "[^"]+"', '--', '*.ts', '*.svelte'], { cwd: repoRoot, encoding: 'utf8' });
    const citations = found.split('\n').filter(Boolean);
    expect(citations.length).toBeGreaterThan(0);
    for (const citation of citations) {
      const [, number, title] = /§([0-9.]+?)\.? "([^"]+)"/.exec(citation)!;
      expect(sections.get(number!), citation).toBe(title);
    }
  });
});
