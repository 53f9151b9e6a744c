import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as source from '../src/index.js';

const packageDir = join(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
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
