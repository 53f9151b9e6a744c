// Writes schema/interthought.schema.json and schema/asyncapi.json from the zod schemas.
// Run with `pnpm --filter @interthought/protocol generate`; test/schema-files.test.ts fails when they are stale.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderSchemaFiles } from './schema-documents.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };

for (const [path, text] of Object.entries(renderSchemaFiles(version))) {
  const target = join(packageDir, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  console.log(`wrote ${path} (${text.length} bytes)`);
}
