import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SERVER_DIR = fileURLToPath(new URL('../../..', import.meta.url));
const DEMO_WORKER = fileURLToPath(new URL('./fixtures/demo-worker.ts', import.meta.url));

/** A worker process serving the demo agent (fixtures/demo-worker.ts). */
export interface WorkerProcess {
  child: ChildProcess;
  workerId: string;
  exited: Promise<number | string>;
  output(): string;
}

/**
 * Start the demo agent in its own worker process (node with the tsx loader, not the tsx CLI, whose
 * node child would outlive a SIGKILL of it) and wait until the server registered it.
 */
export async function spawnDemoWorker(baseUrl: string, token: string, name = 'demo-remote', options: { delayMs?: number; timeoutMs?: number } = {}): Promise<WorkerProcess> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const child = spawn(process.execPath, ['--import', 'tsx', DEMO_WORKER, baseUrl, token, name, String(options.delayMs ?? 0)], { cwd: SERVER_DIR, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const workerId = await new Promise<string>((resolve, reject) => {
    const poll = setInterval(() => {
      const match = /registered (\S+)/u.exec(out);
      if (match?.[1] === undefined) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve(match[1]);
    }, 20);
    const timer = setTimeout(() => {
      clearInterval(poll);
      child.kill('SIGKILL');
      reject(new Error(`The worker process did not register.\n${out}`));
    }, timeoutMs);
    void exited.then(() => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`The worker process exited before it registered.\n${out}`));
    });
  });
  return { child, workerId, exited, output: () => out };
}
