import { describe, expect, it } from 'vitest';
import { reasoning, run, text, toolCall, type FakeAgUiServer } from './fake-ag-ui-server.js';
import { agUiSessionsPerTest, eventually, outcome, sessionsWith, shape, untilSettled } from './support.js';

// The `ag-ui` bridge in the real session core, against an AG-UI agent written here with
// @ag-ui/encoder: what each event becomes, what each request carries, and how a bad agent fails
// its own session only.
const agui = agUiSessionsPerTest({ timeoutMs: 1_000 });

async function start(task: string, options: Record<string, unknown> = {}): Promise<string> {
  const { sessionId } = await agui.manager.create({ task, agent: 'agui', options });
  return sessionId;
}

describe('ag-ui agent: events to steps', () => {
  it('maps reasoning, text before a tool call, the call with its argument deltas, its result, a framework step and the final text', async () => {
    agui.fake.script('weather', {
      frames: run(
        { type: 'STEP_STARTED', stepName: 'agent' },
        ...reasoning('r1', 'Need the ', 'weather.'),
        ...text('m1', 'Let me ', 'look.'),
        ...toolCall('c1', 'get_weather', '{"city":', '"Paris"}'),
        { type: 'STEP_FINISHED', stepName: 'agent' },
        { type: 'TOOL_CALL_RESULT', messageId: 't1', toolCallId: 'c1', content: '{"temp":21}' },
        ...text('m2', 'It is ', '21 °C.'),
        { type: 'CUSTOM', name: 'ignored', value: 1 },
      ),
    });
    const sessionId = await start('weather');
    const { chain, status } = await untilSettled(agui.manager, sessionId, 'completed');
    expect(status).toBe('completed');
    expect(shape(chain)).toEqual([
      'action agent',
      'thought Need the weather.',
      'thought Let me look.',
      'tool_call:get_weather {"city":"Paris"}',
      'observation:get_weather {"temp":21}',
      'final_answer It is 21 °C.',
    ]);
    expect(chain[4]!.result).toEqual({ temp: 21 });
    const [request] = agui.fake.requestsFor('weather');
    expect(request).toMatchObject({ threadId: sessionId, tools: [expect.objectContaining({ name: 'ask_user' })], context: [], state: {}, forwardedProps: {}, messages: [{ role: 'user', content: 'weather' }] });
    expect(agui.fake.requests[0]!.headers).toMatchObject({ accept: 'text/event-stream', 'x-token': 'Bearer secret' });
  });

  it('expands chunks and translates the retired THINKING events, and records the run usage', async () => {
    agui.fake.script('chunks', {
      frames: run(
        { type: 'THINKING_START' },
        { type: 'THINKING_TEXT_MESSAGE_START' },
        { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'Hmm.' },
        { type: 'THINKING_TEXT_MESSAGE_END' },
        { type: 'THINKING_END' },
        { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm1', role: 'assistant', delta: 'Chunks ' },
        { type: 'TEXT_MESSAGE_CHUNK', delta: 'expand.' },
      ).map((event) => (event.type === 'RUN_FINISHED' ? { ...event, usage: [{ model: 'm-1', inputTokens: 10, outputTokens: 4 }] } : event)),
    });
    const sessionId = await start('chunks');
    const { chain } = await untilSettled(agui.manager, sessionId, 'completed');
    expect(shape(chain)).toEqual(['thought Hmm.', 'final_answer Chunks expand.']);
    const snapshot = (await agui.manager.snapshot(sessionId))!;
    expect(snapshot.session.usage).toMatchObject({ inputTokens: 10, outputTokens: 4, calls: 1 });
  });

  it('keeps the last state the agent sent for the thread and sends it on the next run', async () => {
    agui.fake.script('stateful', {
      frames: run({ type: 'STATE_SNAPSHOT', snapshot: { count: 1 } }, { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/count', value: 2 }] }, ...text('m1', 'One.')),
    }, { frames: run(...text('m2', 'Two.')) });
    const sessionId = await start('stateful');
    await untilSettled(agui.manager, sessionId, 'completed');
    await agui.manager.message({ sessionId, text: 'again' } as never);
    await eventually(() => agui.fake.requestsFor('stateful').length === 2, 'the second request');
    await untilSettled(agui.manager, sessionId, 'completed');
    const second = agui.fake.requestsFor('stateful')[1]!;
    expect(second.state).toEqual({ count: 2 });
    expect(second.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'stateful'],
      ['assistant', 'One.'],
      ['user', 'again'],
    ]);
    expect(second.messages[1]!.id).toBe('m1');
  });
});

describe('ag-ui agent: corrections and approvals', () => {
  it('a correction aborts the open request and the next request carries the corrected chain with the note', async () => {
    agui.fake.script('correct', { frames: run(...reasoning('r1', 'The capital is Lyon.'), ...text('m1', 'Lyon.')), gapMs: 150 }, { frames: run(...text('m2', 'Paris.')) });
    const sessionId = await start('correct');
    let thought: string | undefined;
    await eventually(async () => {
      const { chain } = await outcome(agui.manager, sessionId);
      thought = chain.find((step) => step.kind === 'thought' && step.status === 'completed')?.stepId;
      return thought !== undefined;
    }, 'the thought');
    await agui.manager.correct({ sessionId, stepId: thought!, content: 'The capital is Paris.', note: 'Check the facts.' });
    const { chain } = await untilSettled(agui.manager, sessionId, 'completed');
    expect(shape(chain)).toEqual(['thought The capital is Paris.', 'final_answer Paris.']);
    const second = agui.fake.requestsFor('correct')[1]!;
    expect(second.messages).toEqual([
      expect.objectContaining({ role: 'user', content: 'correct' }),
      expect.objectContaining({ role: 'reasoning', content: 'The capital is Paris.' }),
      expect.objectContaining({ role: 'developer', content: expect.stringContaining('Their note: Check the facts.') }),
    ]);
    await eventually(() => agui.fake.aborted >= 1, 'the first request to be aborted');
  });

  it('an interrupt for a tool call makes it wait; the approval is the resume entry of the next request, with the call in the history', async () => {
    agui.fake.script(
      'delete',
      {
        frames: [
          ...run(...toolCall('c1', 'delete_file', '{"path":"/tmp/x"}')).slice(0, -1),
          { type: 'RUN_FINISHED', threadId: '', runId: '', outcome: { type: 'interrupt', interrupts: [{ id: 'int-1', reason: 'tool_call', toolCallId: 'c1', message: 'Delete /tmp/x?' }] } },
        ],
      },
      { frames: run({ type: 'TOOL_CALL_RESULT', messageId: 't1', toolCallId: 'c1', content: 'deleted' }, ...text('m1', 'Done.')) },
    );
    const sessionId = await start('delete');
    const waiting = await untilSettled(agui.manager, sessionId, 'waiting');
    const call = waiting.chain.at(-1)!;
    expect(call).toMatchObject({ kind: 'tool_call', tool: 'delete_file', content: '{"path":"/tmp/x"}', approval: { state: 'pending' } });
    await agui.manager.approve({ sessionId, stepId: call.stepId, by: 'tester' });
    const { chain } = await untilSettled(agui.manager, sessionId, 'completed');
    expect(shape(chain)).toEqual(['tool_call:delete_file {"path":"/tmp/x"}', 'observation:delete_file deleted', 'final_answer Done.']);
    const resumed = agui.fake.requestsFor('delete')[1]!;
    expect(resumed.resume).toEqual([{ interruptId: 'int-1', status: 'resolved', payload: { approved: true } }]);
    expect(resumed.messages.at(-1)).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'c1', type: 'function', function: { name: 'delete_file', arguments: '{"path":"/tmp/x"}' } }] });
  });

  it('a rejected call resumes with approved: false and the refusal as the tool message', async () => {
    agui.fake.script(
      'reject',
      { frames: [...run(...toolCall('c1', 'wipe', '{}')).slice(0, -1), { type: 'RUN_FINISHED', threadId: '', runId: '', outcome: { type: 'interrupt', interrupts: [{ id: 'int-9', reason: 'tool_call', toolCallId: 'c1' }] } }] },
      { frames: run(...text('m1', 'Not wiped.')) },
    );
    const sessionId = await start('reject');
    const waiting = await untilSettled(agui.manager, sessionId, 'waiting');
    await agui.manager.reject({ sessionId, stepId: waiting.chain.at(-1)!.stepId, by: 'tester', reason: 'No.' });
    await untilSettled(agui.manager, sessionId, 'completed');
    const resumed = agui.fake.requestsFor('reject')[1]!;
    expect(resumed.resume).toEqual([{ interruptId: 'int-9', status: 'resolved', payload: { approved: false, reason: 'No.' } }]);
    expect(resumed.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'c1', content: expect.stringContaining('refused') });
  });
});

describe('ag-ui agent: a bad agent fails its own session only', () => {
  const cases: Array<{ task: string; script: Parameters<FakeAgUiServer['script']>[1]; error: RegExp }> = [
    { task: 'run-error', script: { frames: [{ type: 'RUN_STARTED', threadId: '', runId: '' }, ...text('m1', 'Trying.'), { type: 'RUN_ERROR', message: 'The model is overloaded.' }] }, error: /The model is overloaded\./ },
    { task: 'closed-early', script: { frames: [{ type: 'RUN_STARTED', threadId: '', runId: '' }, ...text('m1', 'Half')] }, error: /ended before RUN_FINISHED/ },
    { task: 'not-json', script: { frames: [{ type: 'RUN_STARTED', threadId: '', runId: '' }, { raw: 'data: {nope\n\n' }] }, error: /not JSON/ },
    { task: 'invalid-event', script: { frames: run({ type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 42 }) }, error: /invalid TEXT_MESSAGE_CONTENT event at "delta"/ },
    { task: 'stall', script: { frames: [{ type: 'RUN_STARTED', threadId: '', runId: '' }], hang: true }, error: /stalled/ },
    { task: 'http-500', script: { status: 500 }, error: /answered HTTP 500: agent exploded/ },
  ];
  for (const { task, script, error } of cases) {
    it(`${task}: the session fails with a clear reason while a bystander completes`, async () => {
      agui.fake.script(task, script);
      agui.fake.script(`bystander of ${task}`, { frames: run(...text('b1', 'Fine.')), gapMs: 20 });
      const failing = await start(task);
      const bystander = await start(`bystander of ${task}`);
      const failed = await untilSettled(agui.manager, failing, 'failed');
      expect(failed.error).toMatch(error);
      const fine = await untilSettled(agui.manager, bystander, 'completed');
      expect(shape(fine.chain)).toEqual(['final_answer Fine.']);
    });
  }

  it('an unreachable agent fails after its retries', async () => {
    const unreachable = sessionsWith('http://127.0.0.1:9/agent', { retries: 1 });
    const { sessionId } = await unreachable.create({ task: 'nobody', agent: 'agui' });
    const failed = await untilSettled(unreachable, sessionId, 'failed');
    expect(failed.error).toMatch(/cannot be reached/);
    await unreachable.shutdown();
  });
});
