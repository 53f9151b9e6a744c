import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentsCatalogError, readAgentsCatalog } from '../../src/config/agents-catalog.js';

/** Agents files written for a test, each in a file of its own in a fresh folder. */
export function agentsFiles(prefix: string): (content: unknown) => string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  let files = 0;
  return (content) => {
    const file = join(folder, `agents-${++files}.json`);
    writeFileSync(file, JSON.stringify(content));
    return file;
  };
}

/** The problems reading `file` names, each without the file's path in front. Throws when it reads cleanly. */
export function catalogProblems(file: string): string[] {
  try {
    readAgentsCatalog(file);
  } catch (error) {
    if (error instanceof AgentsCatalogError) return error.problems.map((problem) => problem.problem.replace(`${file}: `, ''));
    throw error;
  }
  throw new Error('expected an AgentsCatalogError');
}
