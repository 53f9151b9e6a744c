import { readFileSync } from 'node:fs';
import { TargetProcess } from '../bench/harness/target-process.js';
import type { ChaosTally } from './tally.js';

/**
 * The server's environment on top of the bench harness's (firehose agent, caps raised, loopback):
 * the per-address caps out of the way too, since every chaos client shares 127.0.0.1.
 */
const CHAOS_ENV: Record<string, string> = {
  HOST: '127.0.0.1',
  INTERTHOUGHT_MAX_CONNECTIONS_PER_ADDRESS: '100000',
  INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_ADDRESS: '100000',
  INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_ADDRESS: '100000',
  INTERTHOUGHT_RUN_STARTS_PER_MINUTE: '100000',
  LOG_LEVEL: 'warn',
};

const RSS_SAMPLE_MS = 100;

/** Peak resident memory of a process so far (VmHWM, bytes), from /proc; undefined once it is gone. */
function peakRss(pid: number): number | undefined {
  try {
    const kb = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1_024;
  } catch {
    return undefined;
  }
}

/**
 * The real server as a child process (the bench harness's `TargetProcess`), on one SQLite file and,
 * after the first start, one port: a restart is the same server to its clients. Watches for an exit
 * the run did not cause (a crash is a violation) and samples the peak RSS of each process.
 */
export class ChaosServer {
  #target: TargetProcess | undefined;
  #port = 0;
  #expectingExit = false;
  #rssTimer: NodeJS.Timeout | undefined;
  /** The highest peak RSS of any of this server's processes (bytes). */
  peakRssBytes = 0;
  restarts = 0;

  constructor(
    readonly label: string,
    private readonly env: Record<string, string>,
    private readonly tally: ChaosTally,
  ) {}

  get httpUrl(): string {
    return this.#require().httpUrl;
  }

  get wsUrl(): string {
    return this.#require().wsUrl;
  }

  get running(): boolean {
    return this.#target?.running ?? false;
  }

  /** Start the server (again, on the same port and file, when it ran before). */
  async start(): Promise<void> {
    const env = { ...CHAOS_ENV, ...this.env, PORT: String(this.#port) };
    const target = await TargetProcess.start('interthought', { label: this.label, env });
    this.#target = target;
    this.#expectingExit = false;
    this.#port = Number(new URL(target.httpUrl).port);
    void target.exited.then((code) => {
      if (this.#expectingExit || this.#target !== target) return;
      this.tally.violation(this.label, `the server exited on its own (code ${code}). Its last output:\n${target.outputTail(30)}`);
    });
    this.#sampleRss(target);
  }

  /** SIGKILL mid-stream, then start again on the same file and port. */
  async killAndRestart(): Promise<void> {
    await this.kill();
    await this.start();
    this.restarts += 1;
  }

  /** SIGKILL: nothing is flushed, no handler runs. */
  async kill(): Promise<void> {
    const target = this.#require();
    this.#noteRss(target);
    this.#expectingExit = true;
    this.#stopSampling();
    await target.kill();
  }

  /** A graceful stop (SIGTERM) at the end of a phase. */
  async stop(): Promise<void> {
    const target = this.#target;
    if (target === undefined) return;
    this.#noteRss(target);
    this.#expectingExit = true;
    this.#stopSampling();
    await target.stop();
  }

  /** The server's last lines of output, for a report. */
  outputTail(lines = 20): string {
    return this.#target?.outputTail(lines) ?? '';
  }

  #sampleRss(target: TargetProcess): void {
    this.#stopSampling();
    this.#rssTimer = setInterval(() => this.#noteRss(target), RSS_SAMPLE_MS);
    this.#rssTimer.unref();
  }

  #noteRss(target: TargetProcess): void {
    const peak = peakRss(target.pid);
    if (peak !== undefined) this.peakRssBytes = Math.max(this.peakRssBytes, peak);
  }

  #stopSampling(): void {
    if (this.#rssTimer !== undefined) clearInterval(this.#rssTimer);
    this.#rssTimer = undefined;
  }

  #require(): TargetProcess {
    if (this.#target === undefined) throw new Error(`${this.label} has not started.`);
    return this.#target;
  }
}
