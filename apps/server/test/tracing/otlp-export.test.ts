import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { createDemoAgent } from '../../src/agents/demo/index.js';
import { SessionManager } from '../../src/core/session-manager.js';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { createDefaultTools } from '../../src/tools/index.js';
import { startTracing } from '../../src/tracing/start-tracing.js';
import { until } from '../core/support/harness.js';
import { runningUrl, spawnServer, testServerEnv, type ServerProcess } from '../support/server-process.js';
import { TestClient } from '../support/ws-client.js';
import { attributesOf, OtlpReceiver } from './support/otlp-receiver.js';
import { startTurnSpan } from '../../src/tracing/turn-span.js';

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await OtlpReceiver.start();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await receiver.close();
});

describe('traces exported over OTLP/HTTP, configured by OTEL_* variables', () => {
  it('sends the spans of a run as OTLP JSON to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces, with the service and headers asked for', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.endpoint);
    vi.stubEnv('OTEL_SERVICE_NAME', 'interthought-test');
    vi.stubEnv('OTEL_EXPORTER_OTLP_HEADERS', 'x-tenant=chains');
    const tracing = startTracing();
    expect(tracing.summary).toBe(`Traces of every run go to ${receiver.endpoint}/v1/traces (OTLP/HTTP, JSON) as service "interthought-test".`);
    const manager = new SessionManager({ traceTurn: startTurnSpan, store: new MemoryEventStore(), agents: new AgentRegistry('demo').register(createDemoAgent()), tools: createDefaultTools() });
    try {
      const { sessionId } = await manager.create({ task: 'What is 12 * 7?' });
      await until(async () => (await manager.snapshot(sessionId))?.session.status === 'completed', 'the session to complete');
    } finally {
      await manager.shutdown();
      // Stopping sends what the batch still holds.
      await tracing.shutdown();
    }

    expect(receiver.exports.map((received) => received.path)).toContain('/v1/traces');
    expect(receiver.exports[0]!.headers['x-tenant']).toBe('chains');
    const spans = receiver.spans();
    const turn = spans.find((span) => span.name === 'invoke_agent demo')!;
    const tool = spans.find((span) => span.name === 'execute_tool calculator')!;
    expect(tool.parentSpanId).toBe(turn.spanId);
    expect(tool.traceId).toBe(turn.traceId);
    expect(turn.resource).toMatchObject({ 'service.name': 'interthought-test', 'telemetry.sdk.language': 'nodejs' });
    expect(attributesOf(turn.attributes)).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'interthought.revision': 0, 'interthought.correction': false });
    expect(attributesOf(tool.attributes)).toMatchObject({ 'gen_ai.tool.name': 'calculator' });
  });
});

describe('traces of the real server process', () => {
  let server: ServerProcess | undefined;
  afterEach(() => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
  });

  it('says where traces go at start, and sends the spans it holds when it stops', async () => {
    // A batch delay far beyond the test: spans can only arrive through the flush on stop.
    server = spawnServer(testServerEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '600000' }));
    const url = await runningUrl(server);
    // Printed after the "running at" line, so it may come in a later chunk of stdout.
    const line = `Traces of every run go to ${receiver.endpoint}/v1/traces (OTLP/HTTP, JSON) as service "interthought".`;
    for (const deadline = Date.now() + 10_000; !server.stdout().includes(line); ) {
      if (Date.now() > deadline) throw new Error(`No traces line on stdout:\n${server.stdout()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const client = await TestClient.connect(`${url.replace('http', 'ws')}/ws`);
    const sessionId = await client.createSession('What is 12 * 7?');
    await client.waitFor((frame) => frame.type === 'session.status' && frame.sessionId === sessionId && frame.status === 'completed', 'the session to complete');
    expect(receiver.exports).toEqual([]);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(receiver.spans().map((span) => span.name)).toEqual(expect.arrayContaining(['invoke_agent demo', 'execute_tool calculator']));
  });

  it('prints nothing about traces when no exporter is asked for', async () => {
    server = spawnServer(testServerEnv({ OTEL_SERVICE_NAME: 'interthought-test' }));
    await runningUrl(server);
    expect(server.stdout()).not.toContain('Traces');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(receiver.exports).toEqual([]);
  });

  it('refuses to start on an OTEL_* value it cannot use, naming it', async () => {
    server = spawnServer(testServerEnv({ OTEL_TRACES_EXPORTER: 'zipkin' }));
    expect(await server.exited).toBe(1);
    expect(server.stderr()).toContain('OTEL_TRACES_EXPORTER names "zipkin"');
  });
});
