import { BenchFailure, type StartOptions } from '../scenarios/scenario.js';
import { TargetProcess, type TargetKind } from './target-process.js';

/** Make sure the server was started in bench mode: without the firehose agent nothing can be measured. */
async function requireFirehose(target: TargetProcess): Promise<void> {
  const response = await fetch(`${target.httpUrl}/api/agents`);
  const agents = (await response.json()) as unknown;
  const names = Array.isArray(agents) ? agents.map((agent: { name?: unknown }) => agent.name) : [];
  if (!names.includes('firehose')) {
    throw new BenchFailure(
      'The server does not offer the firehose agent. apps/server/src/app.ts must register it in bench mode: ' +
        "`if (process.env.INTERTHOUGHT_BENCH === '1') agents.register(createFirehoseAgent())`.",
    );
  }
}

/**
 * Starts and stops the measured servers. Every server is stopped when its user is done, or,
 * when `reuse` is on (smoke), kept for the next scenario asking for the same kind and
 * environment and stopped by `stopAll`.
 */
export class TargetPool {
  readonly #reuse: boolean;
  readonly #warmUp: (target: TargetProcess) => Promise<void>;
  readonly #pooled = new Map<string, TargetProcess>();
  readonly #running = new Set<TargetProcess>();

  /** `warmUp` runs once on every server it starts, before anything is measured on it. */
  constructor(reuse: boolean, warmUp: (target: TargetProcess) => Promise<void>) {
    this.#reuse = reuse;
    this.#warmUp = warmUp;
  }

  async withTarget<T>(kind: TargetKind, options: StartOptions, use: (target: TargetProcess) => Promise<T>): Promise<T> {
    const key = `${kind} ${JSON.stringify(options.env ?? {})}`;
    const reuse = this.#reuse && options.exclusive !== true;
    const pooled = reuse ? this.#pooled.get(key) : undefined;
    const target = pooled ?? (await this.#start(kind, options));
    if (reuse) this.#pooled.set(key, target);
    try {
      return await use(target);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const tail = target.outputTail(12).trim();
      throw new BenchFailure(tail ? `${message}\n${target.label} said:\n${tail}` : message);
    } finally {
      if (!reuse) await this.#stop(target);
    }
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.#running].map((target) => this.#stop(target)));
    this.#pooled.clear();
  }

  async #start(kind: TargetKind, options: StartOptions): Promise<TargetProcess> {
    const target = await TargetProcess.start(kind, options);
    this.#running.add(target);
    try {
      if (kind === 'interthought') await requireFirehose(target);
      await this.#warmUp(target);
    } catch (error) {
      await this.#stop(target);
      throw error;
    }
    return target;
  }

  async #stop(target: TargetProcess): Promise<void> {
    this.#running.delete(target);
    await target.stop();
  }
}
