import { onTestFinished } from 'vitest';
import { applyEvent, createSessionState, type SessionEvent, type SessionState } from '@interthought/protocol';
import { AgentRegistry } from '@interthought/agent';
import type { Agent } from '@interthought/agent';
import type { EventStore } from '../../../src/core/persistence/event-store.js';
import { MemoryEventStore } from '../../../src/store/memory-event-store.js';
import { SessionManager, type SessionManagerDeps } from '../../../src/core/session-manager.js';
import { ToolRegistry } from '../../../src/tools/tool-registry.js';
import { FIVE_KINDS, TestAgent, scriptBehaviour } from './test-agents.js';
import { WaitingTool, adderTool } from './test-tools.js';

export interface HarnessOptions extends Partial<Omit<SessionManagerDeps, 'agents' | 'tools' | 'store'>> {
  store?: EventStore;
  agents?: Agent[];
}

export interface Harness {
  manager: SessionManager;
  /**
   * What the core reported as failures it survived (`reportError`). A test that provokes some
   * takes them with `takeErrors()`; any left when the test ends fail it.
   */
  takeErrors(): string[];
  store: EventStore;
  agents: AgentRegistry;
  tools: ToolRegistry;
  waiter: WaitingTool;
  /** A new manager on the same store: what a server restart looks like to the core. */
  restart(options?: HarnessOptions): Harness;
}

/**
 * A SessionManager on a MemoryEventStore with test agents and tools, deterministic ids
 * ("id-1", "id-2" …) and a clock that advances one second per reading. The default agent,
 * "script", streams one step of each kind.
 */
export function createHarness(options: HarnessOptions = {}): Harness {
  return harnessWith(options, { ids: 0, ticks: 0 });
}

/** Ids and clock readings, shared across restarts as a real clock and nanoid would be. */
interface Counters {
  ids: number;
  ticks: number;
}

function harnessWith(options: HarnessOptions, counters: Counters): Harness {
  const store = options.store ?? new MemoryEventStore();
  const agents = new AgentRegistry('script');
  const given = options.agents ?? [];
  if (!given.some((agent) => agent.name === 'script')) agents.register(new TestAgent('script', scriptBehaviour(FIVE_KINDS)));
  for (const agent of given) agents.register(agent);
  const waiter = new WaitingTool();
  const tools = new ToolRegistry().register(adderTool).register(waiter);
  const { store: _store, agents: _agents, ...rest } = options;
  const errors: string[] = [];
  try {
    onTestFinished(() => {
      if (errors.length > 0) throw new Error(`The session core reported failures nobody expected:\n${errors.join('\n')}`);
    });
  } catch {
    // Built outside a running test (a suite-level harness): its test reads `takeErrors()` itself.
  }
  const manager = new SessionManager({
    store,
    agents,
    tools,
    newId: () => `id-${++counters.ids}`,
    now: () => new Date(Date.UTC(2025, 0, 1) + counters.ticks++ * 1000),
    reportError: (context, error) => errors.push(`${context}: ${error instanceof Error ? error.message : String(error)}`),
    ...rest,
  });
  return {
    manager,
    takeErrors: () => errors.splice(0),
    store,
    agents,
    tools,
    waiter,
    restart: (next = {}) => harnessWith({ ...options, ...next, store }, counters),
  };
}

/**
 * Let the event loop turn until `condition` holds. Counts turns, not time: each turn is one
 * `setImmediate`, which is how the core paces tokens and commits batches.
 */
export async function until(condition: () => boolean | Promise<boolean>, what: string, maxTurns = 20_000): Promise<void> {
  for (let turn = 0; turn < maxTurns; turn++) {
    if (await condition()) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  throw new Error(`Gave up waiting for: ${what}`);
}

/** Let the event loop turn `turns` times (enough for pending batches to be written and sent). */
export async function turns(count = 3): Promise<void> {
  for (let turn = 0; turn < count; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Wait until the session reaches `status` and the events up to it are written and sent. */
export async function untilStatus(manager: SessionManager, sessionId: string, status: string): Promise<void> {
  await until(async () => (await manager.snapshot(sessionId))?.session.status === status, `session ${sessionId} to be ${status}`);
  await turns(2);
}

/** Fold events from scratch with the protocol reducer. */
export function fold(events: readonly SessionEvent[]): SessionState {
  const state = createSessionState();
  for (const event of events) applyEvent(state, event);
  return state;
}

/** Every stored event of a session. */
export function storedEvents(store: EventStore, sessionId: string): Promise<SessionEvent[]> {
  return store.readEvents(sessionId, 0);
}
