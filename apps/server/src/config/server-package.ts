import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The server package's version, announced in `hello.serverVersion` and `/api/health`. */
export const SERVER_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The repository root, found from this file (apps/server/src/config), whatever the process's cwd. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The built web UI (adapter-static output), beside the server package. */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../../web/build', import.meta.url));
