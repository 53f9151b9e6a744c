/**
 * The stall probe's own process, so the chaos clients' work cannot delay its timers: it asks
 * `GET /api/health` every `intervalMs` and keeps the slowest answer. A server whose event loop is
 * stuck answers late; one that is down (mid-restart) is not measured (the parent pauses the probe).
 */
import { Agent, get } from 'node:http';

type Command = { type: 'watch'; url: string; intervalMs: number } | { type: 'pause' } | { type: 'report' };


const agent = new Agent({ keepAlive: true, maxSockets: 1 });
let url: string | undefined;
let intervalMs = 50;
let timer: NodeJS.Timeout | undefined;
let inFlight = false;
let worstMs = 0;
let worstAt = '';
let polls = 0;
let failures = 0;

function poll(target: string): void {
  if (inFlight) return; // the answer still awaited is the one measuring the stall
  inFlight = true;
  const started = performance.now();
  const finish = (ok: boolean) => {
    inFlight = false;
    if (url !== target) return; // paused or moved on while this was in flight
    polls += 1;
    if (!ok) {
      failures += 1;
      return;
    }
    const elapsed = performance.now() - started;
    if (elapsed > worstMs) {
      worstMs = elapsed;
      worstAt = new Date().toISOString();
    }
  };
  const request = get(`${target}/api/health`, { agent, timeout: 30_000 }, (response) => {
    response.resume();
    response.once('end', () => finish(response.statusCode === 200));
    response.once('error', () => finish(false));
  });
  request.once('timeout', () => request.destroy(new Error('timeout')));
  request.once('error', () => finish(false));
}

process.on('message', (command: Command) => {
  if (command.type === 'watch') {
    url = command.url;
    intervalMs = command.intervalMs;
    if (timer !== undefined) clearInterval(timer);
    timer = setInterval(() => url !== undefined && poll(url), intervalMs);
  } else if (command.type === 'pause') {
    url = undefined;
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    agent.destroy();
  } else {
    // Each report covers the polls since the last one (one phase of the run).
    process.send?.({ type: 'report', worstMs, worstAt, polls, failures, intervalMs });
    worstMs = 0;
    worstAt = '';
    polls = 0;
    failures = 0;
  }
});
process.on('disconnect', () => process.exit(0));
