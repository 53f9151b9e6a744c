import { describe, expect, it } from 'vitest';
import { ASK_USER_TOOL } from '@interthought/protocol';
import { run, text, toolCall } from './fake-ag-ui-server.js';
import { agUiSessionsPerTest, shape, untilSettled } from './support.js';

// Driving an AG-UI agent that asks (PROTOCOL.md §25.6): the bridge offers `ask_user`; the agent's
// call of it, or an interrupt that is not about a tool call, is a question the session waits on,
// and the answer goes back to the agent in its next run.
const agui = agUiSessionsPerTest({ timeoutMs: 1_000 });

const QUESTION = { question: 'Which city?', choices: ['Paris', 'Lyon'] };

/** A run that ends with `interrupts` (threadId / runId are filled in per request). */
function interrupted(events: Array<Record<string, unknown>>, interrupts: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return [...run(...events).slice(0, -1), { type: 'RUN_FINISHED', threadId: '', runId: '', outcome: { type: 'interrupt', interrupts } }];
}

async function start(task: string, options: Record<string, unknown> = {}): Promise<string> {
  const { sessionId } = await agui.manager.create({ task, agent: 'agui', options: { tokenDelayMs: 0, ...options } });
  return sessionId;
}

/** Wait for the question at the head of the chain and answer it. */
async function answer(sessionId: string, reply: string) {
  const waiting = await untilSettled(agui.manager, sessionId, 'waiting');
  const question = waiting.chain.at(-1)!;
  expect(question).toMatchObject({ kind: 'tool_call', tool: ASK_USER_TOOL, question: { state: 'pending' } });
  await agui.manager.provideInput({ sessionId, stepId: question.stepId, text: reply, by: 'tester' });
  return { waiting, question };
}

describe('ag-ui agent: asking the user', () => {
  it('offers ask_user in RunAgentInput.tools, with its input schema', async () => {
    agui.fake.script('offer', { frames: run(...text('m1', 'Fine.')) });
    await untilSettled(agui.manager, await start('offer'), 'completed');
    const [request] = agui.fake.requestsFor('offer');
    expect(request!.tools).toEqual([
      {
        name: ASK_USER_TOOL,
        description: expect.stringContaining('Ask the user'),
        parameters: expect.objectContaining({ type: 'object', properties: expect.objectContaining({ question: expect.any(Object), choices: expect.any(Object) }), required: ['question'] }),
      },
    ]);
  });

  it("the agent's ask_user call is the question; the answer is its tool message in the next request", async () => {
    agui.fake.script('frontend', { frames: run(...text('m1', 'I need to ask.'), ...toolCall('c1', ASK_USER_TOOL, JSON.stringify(QUESTION))) }, { frames: run(...text('m2', 'Lyon it is.')) });
    const sessionId = await start('frontend');
    const { waiting } = await answer(sessionId, 'Lyon');
    expect(shape(waiting.chain)).toEqual(['thought I need to ask.', `tool_call:ask_user ${JSON.stringify(QUESTION)}`]);
    const { chain } = await untilSettled(agui.manager, sessionId, 'completed');
    expect(shape(chain)).toEqual(['thought I need to ask.', `tool_call:ask_user ${JSON.stringify(QUESTION)}`, 'observation:ask_user Lyon', 'final_answer Lyon it is.']);
    const second = agui.fake.requestsFor('frontend')[1]!;
    expect(second.resume).toBeUndefined();
    expect(second.messages.slice(-2)).toEqual([
      expect.objectContaining({ role: 'assistant', toolCalls: [{ id: 'c1', type: 'function', function: { name: ASK_USER_TOOL, arguments: JSON.stringify(QUESTION) } }] }),
      expect.objectContaining({ role: 'tool', toolCallId: 'c1', content: 'Lyon' }),
    ]);
  });

  it('an interrupt naming its ask_user call waits for the answer, never for approval, and resumes with { text }', async () => {
    agui.fake.script(
      'interrupted-call',
      { frames: interrupted(toolCall('c1', ASK_USER_TOOL, JSON.stringify(QUESTION)), [{ id: 'int-1', reason: 'input_required', toolCallId: 'c1', message: 'Which city?' }]) },
      { frames: run(...text('m2', 'Paris, then.')) },
    );
    const sessionId = await start('interrupted-call', { approve: 'all' });
    const { question } = await answer(sessionId, 'Paris');
    expect(question.approval).toBeUndefined();
    const { chain } = await untilSettled(agui.manager, sessionId, 'completed');
    expect(shape(chain).at(-1)).toBe('final_answer Paris, then.');
    const second = agui.fake.requestsFor('interrupted-call')[1]!;
    expect(second.resume).toEqual([{ interruptId: 'int-1', status: 'resolved', payload: { text: 'Paris' } }]);
  });

  it('an interrupt not about a tool call becomes an ask_user call of its question and choices; the answer resumes the agent', async () => {
    const schema = { type: 'object', properties: { region: { type: 'string', enum: ['eu', 'us'] } }, required: ['region'] };
    agui.fake.script(
      'question',
      { frames: interrupted(text('m1', 'Where are you?'), [{ id: 'int-q', reason: 'input_required', message: 'Which region?', responseSchema: schema }]) },
      { frames: run(...text('m2', 'Serving you from eu.')) },
    );
    const sessionId = await start('question');
    const { waiting } = await answer(sessionId, 'eu');
    expect(shape(waiting.chain)).toEqual(['thought Where are you?', `tool_call:ask_user ${JSON.stringify({ question: 'Which region?', choices: ['eu', 'us'] })}`]);
    const { chain } = await untilSettled(agui.manager, sessionId, 'completed');
    expect(shape(chain).slice(2)).toEqual(['observation:ask_user eu', 'final_answer Serving you from eu.']);
    expect(chain[2]!.result).toMatchObject({ answer: 'eu', choice: 0 });
    const second = agui.fake.requestsFor('question')[1]!;
    expect(second.resume).toEqual([{ interruptId: 'int-q', status: 'resolved', payload: { text: 'eu' } }]);
    // The call is the bridge's, not the agent's: the resume entry carries the answer, the history neither.
    expect(second.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(second.messages[1]).toMatchObject({ id: 'm1', content: 'Where are you?' });
  });

  it('an interrupt with no message asks the default question, without choices', async () => {
    agui.fake.script('bare', { frames: interrupted([], [{ id: 'int-b', reason: 'confirmation' }]) }, { frames: run(...text('m2', 'Thanks.')) });
    const sessionId = await start('bare');
    const { question } = await answer(sessionId, 'yes');
    expect(JSON.parse(question.content)).toEqual({ question: 'The agent needs your input.' });
    await untilSettled(agui.manager, sessionId, 'completed');
    expect(agui.fake.requestsFor('bare')[1]!.resume).toEqual([{ interruptId: 'int-b', status: 'resolved', payload: { text: 'yes' } }]);
  });

  it('an ask_user call with input that is no question is answered with an Error observation, and the agent runs again to read it', async () => {
    agui.fake.script('badly', { frames: run(...toolCall('c1', ASK_USER_TOOL, '{"question":""}')) }, { frames: run(...text('m2', 'I will not ask, then.')) });
    const sessionId = await start('badly');
    const { chain } = await untilSettled(agui.manager, sessionId, 'completed');
    expect(shape(chain)).toEqual(['tool_call:ask_user {"question":""}', expect.stringMatching(/^observation:ask_user Error: Invalid input for ask_user: question: /u), 'final_answer I will not ask, then.']);
    expect(chain[1]!.result).toEqual({ error: expect.stringContaining('question') });
    const second = agui.fake.requestsFor('badly')[1]!;
    expect(second.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'c1', content: expect.stringMatching(/^Error: /u) });
    expect((await agui.manager.snapshot(sessionId))!.steps.some((step) => step.question !== undefined)).toBe(false);
  });

  it("a subagent's ask_user call fails the run naming the subagent: nothing waits on a scope the bridge cannot resume", async () => {
    const lane = (event: Record<string, unknown>) => ({ ...event, subagentRunId: 'sa-1' });
    agui.fake.script('lane', {
      frames: run(
        ...toolCall('c1', 'delegate', '{"task":"Find the city"}'),
        { type: 'SUBAGENT_STARTED', subagentRunId: 'sa-1', name: 'finder', parentToolCallId: 'c1' },
        ...toolCall('q1', ASK_USER_TOOL, JSON.stringify(QUESTION)).map(lane),
        { type: 'SUBAGENT_FINISHED', subagentRunId: 'sa-1' },
      ),
    });
    const sessionId = await start('lane');
    const failed = await untilSettled(agui.manager, sessionId, 'failed');
    expect(failed.error).toMatch(/subagent 'sa-1' called ask_user: questions inside a sub-agent are not bridged/u);
    const snapshot = (await agui.manager.snapshot(sessionId))!;
    expect(snapshot.steps.some((step) => step.tool === ASK_USER_TOOL)).toBe(false);
    expect((snapshot.subagents ?? []).map((subagent) => subagent.status)).toEqual(['failed']);
  });

  it('a question nobody answers in time resumes the agent with its interrupt cancelled', async () => {
    agui.fake.script('late', { frames: interrupted([], [{ id: 'int-l', reason: 'input_required', message: 'Still there?' }]) }, { frames: run(...text('m2', 'Going on without you.')) });
    const sessionId = await start('late', { inputTimeoutMs: 1_000 });
    await untilSettled(agui.manager, sessionId, 'waiting');
    const { chain } = await untilSettled(agui.manager, sessionId, 'completed');
    expect(chain.at(-2)).toMatchObject({ kind: 'observation', tool: ASK_USER_TOOL, result: { unanswered: true } });
    expect(agui.fake.requestsFor('late')[1]!.resume).toEqual([{ interruptId: 'int-l', status: 'cancelled' }]);
  });
});
