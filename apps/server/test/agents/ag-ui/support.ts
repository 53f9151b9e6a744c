import { afterEach, beforeEach } from 'vitest';
import type { Step } from '@interthought/protocol';
import { AgentRegistry } from '@interthought/agent';
import { createDemoAgent } from '../../../src/agents/demo/index.js';
import { agUiAgent } from '../../../src/agents/ag-ui/index.js';
import { SessionManager } from '../../../src/core/session-manager.js';
import { MemoryEventStore } from '../../../src/store/memory-event-store.js';
import { createDefaultTools } from '../../../src/tools/index.js';
import { FakeAgUiServer } from './fake-ag-ui-server.js';

/** The real session core with the demo agent and an `agui` agent at `url`. */
export function sessionsWith(url: string, options: { timeoutMs?: number; retries?: number; env?: Record<string, string> } = {}): SessionManager {
  return new SessionManager({
    store: new MemoryEventStore(),
    agents: new AgentRegistry('demo')
      .register(createDemoAgent())
      .register(agUiAgent({ name: 'agui', description: 'A test AG-UI agent', endpoint: { url, headers: { 'x-token': 'Bearer ${AGUI_TEST_TOKEN}' }, timeoutMs: options.timeoutMs ?? 2_000, retries: options.retries ?? 0 }, env: options.env ?? { AGUI_TEST_TOKEN: 'secret' } })),
    tools: createDefaultTools(),
    defaultTokenDelayMs: 0,
  });
}

/** Wait (in time, since an HTTP agent is involved) until `condition` holds. */
export async function eventually(condition: () => boolean | Promise<boolean>, what: string, ms = 8_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Gave up waiting for: ${what}`);
}

export async function untilSettled(manager: SessionManager, sessionId: string, status: string): Promise<{ status: string; error?: string; chain: Step[] }> {
  await eventually(async () => (await manager.snapshot(sessionId))?.session.status === status, `session ${sessionId} to be ${status}`);
  return outcome(manager, sessionId);
}

export async function outcome(manager: SessionManager, sessionId: string): Promise<{ status: string; error?: string; chain: Step[] }> {
  const snapshot = (await manager.snapshot(sessionId))!;
  const chain = snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
  const error = (snapshot.session as { error?: string }).error;
  return { status: snapshot.session.status, ...(error === undefined ? {} : { error }), chain };
}

/** The chain as `kind[:tool] content` lines. */
export function shape(chain: readonly Step[]): string[] {
  return chain.map((step) => `${step.kind}${step.tool === undefined ? '' : `:${step.tool}`} ${step.content}`);
}

export interface AgUiSessions {
  /** The fake AG-UI agent of the current test. */
  readonly fake: FakeAgUiServer;
  /** The session core of the current test, its `agui` agent at the fake (`sessionsWith`). */
  readonly manager: SessionManager;
}

/** A fake AG-UI agent and the real session core driving it, started before each test and shut down after it. */
export function agUiSessionsPerTest(options: Parameters<typeof sessionsWith>[1] = {}): AgUiSessions {
  let fake: FakeAgUiServer | undefined;
  let manager: SessionManager | undefined;
  beforeEach(async () => {
    fake = await FakeAgUiServer.start();
    manager = sessionsWith(fake.url, options);
  });
  afterEach(async () => {
    await manager?.shutdown();
    await fake?.close();
    manager = undefined;
    fake = undefined;
  });
  const during = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the AG-UI fake runs only during a test');
    return value;
  };
  return {
    get fake() {
      return during(fake);
    },
    get manager() {
      return during(manager);
    },
  };
}
