import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is apps/web/test/e2e/support/server.ts). */
export const REPO_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const WEB_BUILD = fileURLToPath(new URL('../../../build/index.html', import.meta.url));
const READY = /Interthought is running at (http:\/\/\S+)/;

export interface RunningServer {
  /** The base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Everything the server printed so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Start the real server (`node --import tsx apps/server/src/main.ts`) on a free port, serving the
 * web build, and resolve once it prints its URL. The test builds nothing itself: `pnpm test`
 * runs `pnpm build` first.
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  if (!existsSync(WEB_BUILD)) {
    throw new Error(`The web app is not built (${WEB_BUILD} is missing). Run \`pnpm build\` before the end-to-end tests.`);
  }
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
    cwd: REPO_ROOT,
    // An in-memory store: each run starts empty and never contends for the default database file.
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', INTERTHOUGHT_TOKEN_DELAY_MS: '25', INTERTHOUGHT_DB: ':memory:', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The server did not start within 30 s. Output:\n${output}`)), 30_000);
    const onData = () => {
      const match = READY.exec(output);
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The server exited (code ${code}) before it was ready. Output:\n${output}`));
    });
  });

  return { url, output: () => output, stop: () => stopProcess(child) };
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
