import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** An agents file (`INTERTHOUGHT_AGENTS_CONFIG`) in a fresh temporary folder; returns its path. */
export function writeAgentsFile(agents: Record<string, unknown>): string {
  const file = join(mkdtempSync(join(tmpdir(), 'interthought-agents-e2e-')), 'agents.json');
  writeFileSync(file, JSON.stringify({ agents }));
  return file;
}
