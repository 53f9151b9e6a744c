import { AgentRegistry } from '@interthought/agent';
import { createDemoAgent } from '../../apps/server/src/agents/demo/index.js';
import type { Peer } from '../../apps/server/src/core/fanout/peer.js';
import { SessionManager } from '../../apps/server/src/core/session-manager.js';
import { MemoryEventStore } from '../../apps/server/src/store/memory-event-store.js';
import { createDefaultTools } from '../../apps/server/src/tools/index.js';
import { startTurnSpan } from '../../apps/server/src/tracing/turn-span.js';

/** Tasks of one and of two tool calls, in turn. */
const TASKS = ['What is 12 * 7?', 'What is 100 divided by 8 minus 2?'];

export interface RunFigures {
  runs: number;
  wallMs: number;
  /** CPU time of the process (user + system) per run, in microseconds. */
  cpuMicrosPerRun: number;
  runsPerSecond: number;
}

/**
 * Runs of the demo agent in the real session core (store in memory, no token delay), `concurrency`
 * sessions at a time, each to its final status as its creator sees it. Nothing else runs in the
 * process, so CPU time per run is what a run costs.
 */
export async function demoRuns(runs: number, concurrency: number): Promise<RunFigures> {
  const manager = new SessionManager({ traceTurn: startTurnSpan,
    store: new MemoryEventStore(),
    agents: new AgentRegistry('demo').register(createDemoAgent()),
    tools: createDefaultTools(),
    maxActiveSessions: concurrency * 2,
  });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let created = 0;
  const worker = async (): Promise<void> => {
    while (created < runs) {
      const task = TASKS[created++ % TASKS.length]!;
      await oneRun(manager, task);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  await manager.shutdown();
  return { runs, wallMs, cpuMicrosPerRun: (cpu.user + cpu.system) / runs, runsPerSecond: (runs / wallMs) * 1000 };
}

/** Create a session and wait for its run to end (the creator's peer gets every event). */
function oneRun(manager: SessionManager, task: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const peer: Peer = {
      id: 'bench',
      send(frame) {
        const event = frame.event;
        if (event?.type === 'session.status' && (event.status === 'completed' || event.status === 'failed')) resolve();
      },
      sendLive() {},
    };
    manager.create({ task }, { peer }).catch(reject);
  });
}
