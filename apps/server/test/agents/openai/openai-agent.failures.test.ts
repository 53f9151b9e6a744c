import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIAgent, OpenAIEndpointError } from '../../../src/agents/openai/index.js';
import { FakeOpenAIServer } from './support/fake-openai-server.js';
import { testEnv, testRun } from './support/run-context.js';
import { answerTurn, content, errorReply, reasoning, toolCall, toolTurn } from './support/wire.js';

let fake: FakeOpenAIServer;
beforeEach(async () => {
  fake = await FakeOpenAIServer.start();
});
afterEach(async () => {
  await fake.close();
});

/** A local URL nothing listens on: a port that was free a moment ago. */
async function closedPortURL(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

describe('openai agent: refusals', () => {
  it.each([
    [401, 'Incorrect API key provided: sk-wrong.'],
    [403, 'Project does not have access to model test-model.'],
    [404, 'The model `test-model` does not exist or you do not have access to it.'],
  ])('fails the run with the provider message on %i, without retrying', async (status, message) => {
    fake.reply(errorReply(status, message));
    const { context, sink } = testRun();

    const run = createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    await expect(run).rejects.toThrow(`OpenAI-compatible endpoint refused the request (${status}): ${message}`);
    await expect(run).rejects.toBeInstanceOf(OpenAIEndpointError);
    expect(fake.requests).toHaveLength(1);
    expect(sink.events).toEqual([]);
  });

  it('fails on a 400 with what the provider objected to', async () => {
    fake.reply(errorReply(400, "Invalid value for 'temperature'."));

    await expect(createOpenAIAgent(testEnv(fake.baseURL)).run(testRun().context)).rejects.toThrow(
      "OpenAI-compatible endpoint rejected the request (400): Invalid value for 'temperature'.",
    );
  });
});

describe('openai agent: retries', () => {
  it('retries a 429 after the wait the endpoint asks for, with a visible notice, then succeeds', async () => {
    fake.reply(errorReply(429, 'Rate limit reached for requests', { 'retry-after-ms': '20' }), answerTurn(...content('5')));
    const { context, sink } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(sink.notices()).toEqual(['rate limited (429), retrying in 20 ms…']);
    expect(sink.summary()).toEqual([{ kind: 'final_answer', content: '5' }]);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]?.body).toEqual(fake.requests[0]?.body);
  });

  it('backs off exponentially on server errors', async () => {
    fake.reply(errorReply(503, 'overloaded'), errorReply(502, 'bad gateway'), answerTurn(...content('5')));
    const { context, sink } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(sink.notices()).toEqual(['endpoint error (503), retrying in 5 ms…', 'endpoint error (502), retrying in 10 ms…']);
    expect(sink.summary()).toEqual([{ kind: 'final_answer', content: '5' }]);
  });

  it('caps a Retry-After in seconds at the configured maximum wait', async () => {
    fake.reply(errorReply(429, 'slow down', { 'retry-after': '120' }), answerTurn(...content('5')));
    const { context, sink } = testRun();

    await createOpenAIAgent(testEnv(fake.baseURL, { INTERTHOUGHT_OPENAI_RETRY_MAX_MS: '30' })).run(context);

    expect(sink.notices()).toEqual(['rate limited (429), retrying in 30 ms…']);
  });

  it('fails after the last attempt when the server keeps failing', async () => {
    fake.reply(errorReply(500, 'The server had an error.'), errorReply(500, 'The server had an error.'), errorReply(500, 'The server had an error.'));
    const { context, sink } = testRun();

    await expect(createOpenAIAgent(testEnv(fake.baseURL)).run(context)).rejects.toThrow(
      'OpenAI-compatible endpoint still failing after 3 attempts (500): The server had an error.',
    );
    expect(fake.requests).toHaveLength(3);
    expect(sink.notices()).toHaveLength(2);
  });

  it('stops waiting for a retry when the run is aborted', async () => {
    fake.reply(errorReply(429, 'Rate limit reached', { 'retry-after-ms': '60000' }));
    const { context, sink, controller } = testRun();

    const run = createOpenAIAgent(testEnv(fake.baseURL, { INTERTHOUGHT_OPENAI_RETRY_MAX_MS: '60000' })).run(context);
    await sink.waitFor((event) => event.type === 'notice');
    controller.abort();

    await expect(run).rejects.toBe(controller.signal.reason);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('openai agent: connection failures', () => {
  it('fails cleanly when nothing listens at the base URL', async () => {
    const baseURL = await closedPortURL();

    await expect(createOpenAIAgent(testEnv(baseURL)).run(testRun().context)).rejects.toThrow(
      new RegExp(`^Could not reach the OpenAI-compatible endpoint at ${baseURL}: .*ECONNREFUSED`),
    );
  });

  it('fails cleanly when the endpoint never answers', async () => {
    fake.reply({ type: 'hang' });

    await expect(
      createOpenAIAgent(testEnv(fake.baseURL, { INTERTHOUGHT_OPENAI_TIMEOUT_MS: '150' })).run(testRun().context),
    ).rejects.toThrow(`OpenAI-compatible endpoint at ${fake.baseURL} sent nothing for 150 ms`);
  });

  it('fails cleanly and closes the request when the stream stalls midway', async () => {
    fake.reply({ type: 'stream', deltas: reasoning('Thinking'), finishReason: null, hang: true });
    const { context, sink } = testRun();

    const run = createOpenAIAgent(testEnv(fake.baseURL, { INTERTHOUGHT_OPENAI_TIMEOUT_MS: '150' })).run(context);

    await expect(run).rejects.toThrow('sent nothing for 150 ms');
    await fake.waitForDisconnect();
    expect(sink.summary()).toEqual([{ kind: 'thought', content: 'Thinking' }]);
  });

  it('fails with the message of an error the endpoint sends mid-stream', async () => {
    fake.reply({ type: 'stream', deltas: content('The answer'), finishReason: null, errorMessage: 'The model is overloaded.' });

    await expect(createOpenAIAgent(testEnv(fake.baseURL)).run(testRun().context)).rejects.toThrow(
      'OpenAI-compatible endpoint reported an error while streaming: The model is overloaded.',
    );
  });

  it('fails when the stream ends before the model finished its turn', async () => {
    fake.reply({ type: 'stream', deltas: content('The answer is'), finishReason: null });

    await expect(createOpenAIAgent(testEnv(fake.baseURL)).run(testRun().context)).rejects.toThrow(
      'OpenAI-compatible endpoint closed the stream before the model finished its turn.',
    );
  });

  it('fails when a turn ends with neither text nor a tool call', async () => {
    fake.reply({ type: 'stream', deltas: reasoning('Hmm, let me think about'), finishReason: 'length' });

    await expect(createOpenAIAgent(testEnv(fake.baseURL)).run(testRun().context)).rejects.toThrow(
      'The model ended its turn (finish_reason: length) without an answer or a tool call.',
    );
  });
});

describe('openai agent: stopping', () => {
  it('aborts the HTTP request when the run is aborted and rejects with the AbortError', async () => {
    fake.reply({ type: 'stream', deltas: reasoning('Let me ', 'think'), finishReason: null, hang: true });
    const { context, sink, controller } = testRun();

    // A timeout far beyond the test's own: only the abort can end this run.
    const run = createOpenAIAgent(testEnv(fake.baseURL, { INTERTHOUGHT_OPENAI_TIMEOUT_MS: '600000' })).run(context);
    await sink.waitFor((event) => event.type === 'write' && event.text === 'think');
    controller.abort();

    await expect(run).rejects.toBe(controller.signal.reason);
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    await fake.waitForDisconnect();
    expect(fake.disconnects).toBe(1);
  });

  it('gives up after the configured number of model turns without a final answer', async () => {
    fake.reply(
      toolTurn(...toolCall(0, 'call_1', 'add', '{"a":1,"b":1}')),
      toolTurn(...toolCall(0, 'call_2', 'add', '{"a":2,"b":2}')),
    );
    const { context, sink } = testRun();

    await expect(
      createOpenAIAgent(testEnv(fake.baseURL, { INTERTHOUGHT_OPENAI_MAX_ITERATIONS: '2' })).run(context),
    ).rejects.toThrow('stopped after 2 model turns without a final answer');
    expect(fake.requests).toHaveLength(2);
    expect(sink.summary().map((step) => step.kind)).toEqual(['tool_call', 'observation', 'tool_call', 'observation']);
  });
});
