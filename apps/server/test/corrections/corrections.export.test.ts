import type { PreferenceLine, Step } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { foldSnapshot } from './snapshot.js';
import { correct, exportLines, finished, listCorrections, reject, useServerAndClient, waiting } from './support.js';

/*
 * The export of every kind of correction (PROTOCOL.md §26.1, §26.3), in both formats, every line
 * validated by its schema: a real client corrects the demo agent's sessions over the WebSocket.
 */
describe('GET /api/corrections/export', () => {
  const env = useServerAndClient();

  const byKind = (chain: Step[], kind: Step['kind']): Step => {
    const step = chain.find((candidate) => candidate.kind === kind);
    if (step === undefined) throw new Error(`the chain has no ${kind}`);
    return step;
  };

  it('a corrected thought: the task as the prompt, the old thought rejected, the new one chosen', async () => {
    const { sessionId, chain } = await finished(env.client, 'What is 6 * 7?');
    const thought = byKind(chain, 'thought');
    const newStepId = await correct(env.client, sessionId, thought.stepId, 'I will multiply six by seven.', 'say it plainly');

    const page = await listCorrections(env.http, { session: sessionId });
    expect(page.corrections).toEqual([
      expect.objectContaining({ sessionId, stepId: thought.stepId, correctedStepId: newStepId, index: 0, kind: 'thought', correction: 'edited', before: thought.content, after: 'I will multiply six by seven.', note: 'say it plainly', task: 'What is 6 * 7?', agent: 'demo' }),
    ]);
    const { lines, response } = await exportLines(env.http, 'preference', { session: sessionId });
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="interthought-corrections-preference.ndjson"');
    expect(lines).toEqual([
      {
        prompt: [{ role: 'user', content: 'What is 6 * 7?' }],
        chosen: [{ role: 'assistant', content: 'I will multiply six by seven.' }],
        rejected: [{ role: 'assistant', content: thought.content }],
        metadata: expect.objectContaining({ sessionId, stepId: thought.stepId, correctedStepId: newStepId, kind: 'thought', correction: 'edited', note: 'say it plainly', agent: 'demo' }),
      },
    ]);
    const sft = await exportLines(env.http, 'sft', { session: sessionId });
    expect(sft.lines).toEqual([{ messages: [{ role: 'user', content: 'What is 6 * 7?' }, { role: 'assistant', content: 'I will multiply six by seven.' }], metadata: lines[0]!.metadata }]);
  });

  it('a corrected tool call: the chain before it as messages, the calls as tool_calls named by their steps', async () => {
    const { sessionId, chain } = await finished(env.client, 'What is 25% off 240?');
    const call = byKind(chain, 'tool_call');
    const before = chain.slice(0, chain.indexOf(call));
    const newStepId = await correct(env.client, sessionId, call.stepId, '{"expression":"240 * 0.75"}', 'the discount is off the price');

    const [record] = (await listCorrections(env.http, { session: sessionId })).corrections;
    expect(record).toMatchObject({ kind: 'tool_call', tool: 'calculator', correction: 'edited', before: call.content, after: '{"expression":"240 * 0.75"}' });
    const { lines } = await exportLines(env.http, 'preference', { session: sessionId });
    expect(lines).toHaveLength(1);
    const line = lines[0] as PreferenceLine;
    expect(line.prompt).toEqual([{ role: 'user', content: 'What is 25% off 240?' }, ...before.map((step) => ({ role: 'assistant', content: step.content }))]);
    expect(line.rejected).toEqual([{ role: 'assistant', content: '', tool_calls: [{ id: call.stepId, type: 'function', function: { name: 'calculator', arguments: call.content } }] }]);
    expect(line.chosen).toEqual([{ role: 'assistant', content: '', tool_calls: [{ id: newStepId, type: 'function', function: { name: 'calculator', arguments: '{"expression":"240 * 0.75"}' } }] }]);
    expect(line.metadata).toMatchObject({ tool: 'calculator', correction: 'edited' });
    const sft = await exportLines(env.http, 'sft', { session: sessionId });
    expect(sft.lines[0]!.messages).toEqual([...line.prompt, line.chosen[0]]);
  });

  it('a later step: the observation before it is a tool message answering its call', async () => {
    const { sessionId, chain } = await finished(env.client, 'What is 12 * 12?');
    const answer = byKind(chain, 'final_answer');
    await correct(env.client, sessionId, answer.stepId, 'The answer is 144.');
    const { lines } = await exportLines(env.http, 'preference', { session: sessionId });
    const call = byKind(chain, 'tool_call');
    const observation = byKind(chain, 'observation');
    expect(lines[0]!.prompt).toContainEqual({ role: 'tool', tool_call_id: call.stepId, content: observation.content });
    expect(lines[0]!.prompt.at(-1)).toEqual({ role: 'tool', tool_call_id: call.stepId, content: observation.content });
    expect(lines[0]!.metadata).toMatchObject({ kind: 'final_answer' });
  });

  it('an edited approval counts as a correction of the call, said in metadata', async () => {
    const { sessionId, stepId } = await waiting(env.client, 'What is 15% of 240?');
    const newStepId = await correct(env.client, sessionId, stepId, '{"expression":"240 * 0.25"}', 'it is 25%');
    const [record] = (await listCorrections(env.http, { session: sessionId })).corrections;
    expect(record).toMatchObject({ stepId, correctedStepId: newStepId, kind: 'tool_call', tool: 'calculator', correction: 'approval_edited', after: '{"expression":"240 * 0.25"}', note: 'it is 25%' });
    const { lines } = await exportLines(env.http, 'preference', { session: sessionId });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.metadata).toMatchObject({ correction: 'approval_edited', stepId, correctedStepId: newStepId });
    expect(lines[0]!.chosen[0]!.tool_calls?.[0]?.function.arguments).toBe('{"expression":"240 * 0.25"}');
  });

  it('a rejection with a reason: the reason is the preferred turn; one without a reason is listed, not exported', async () => {
    const refused = await waiting(env.client, 'What is 10% of 50?');
    await reject(env.client, refused.sessionId, refused.stepId, 'work it out without the calculator');
    const [record] = (await listCorrections(env.http, { session: refused.sessionId })).corrections;
    expect(record).toMatchObject({ stepId: refused.stepId, kind: 'tool_call', tool: 'calculator', correction: 'rejected', after: 'work it out without the calculator' });
    const { lines } = await exportLines(env.http, 'preference', { session: refused.sessionId });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.chosen).toEqual([{ role: 'assistant', content: 'work it out without the calculator' }]);
    expect(lines[0]!.rejected[0]!.tool_calls?.[0]).toMatchObject({ id: refused.stepId, function: { name: 'calculator' } });
    expect(lines[0]!.metadata).toMatchObject({ correction: 'rejected', correctedStepId: record!.correctedStepId });
    const sft = await exportLines(env.http, 'sft', { session: refused.sessionId });
    expect(sft.lines[0]!.messages.at(-1)).toEqual({ role: 'assistant', content: 'work it out without the calculator' });

    const silent = await waiting(env.client, 'What is 20% of 50?');
    await reject(env.client, silent.sessionId, silent.stepId);
    expect((await listCorrections(env.http, { session: silent.sessionId })).corrections).toEqual([expect.objectContaining({ correction: 'rejected', after: '' })]);
    expect((await exportLines(env.http, 'preference', { session: silent.sessionId })).lines).toEqual([]);
  });

  it('a correction inside a sub-agent: its scope, and the context is the scope’s task and chain', async () => {
    const { sessionId } = await finished(env.client, 'What is 17 * 23 + 4? Also, what is 15% of 240?');
    const state = await foldSnapshot(env.http.baseUrl, sessionId);
    const [scope, subagent] = [...state.subagents.entries()][0]!;
    const scoped = subagent.chain.map((stepId) => state.steps.get(stepId)!);
    const call = scoped.find((step) => step.kind === 'tool_call');
    if (call === undefined) throw new Error('the sub-agent made no call');
    const newStepId = await correct(env.client, sessionId, call.stepId, '{"expression":"1 + 1"}', 'inside the sub-agent');

    const [record] = (await listCorrections(env.http, { session: sessionId })).corrections;
    expect(record).toMatchObject({ stepId: call.stepId, correctedStepId: newStepId, scope, kind: 'tool_call', index: call.index });
    const { lines } = await exportLines(env.http, 'preference', { session: sessionId });
    expect(lines).toHaveLength(1);
    const before = scoped.slice(0, scoped.indexOf(call));
    expect(lines[0]!.prompt).toEqual([{ role: 'user', content: subagent.task }, ...before.map((step) => ({ role: 'assistant', content: step.content }))]);
    expect(lines[0]!.metadata).toMatchObject({ scope, stepId: call.stepId });
  });

  it('editing one’s own message is no correction of the agent', async () => {
    const { sessionId } = await finished(env.client, 'What is 2 + 2?');
    const id = env.client.send({ type: 'session.message', sessionId, text: 'And 3 + 3?' });
    await env.client.answerTo(id);
    const state = await env.client.untilFinished(sessionId);
    const message = state.find((event) => event.type === 'step.started' && event.step.kind === 'user_message');
    if (message?.type !== 'step.started') throw new Error('no user message');
    await correct(env.client, sessionId, message.step.stepId, 'And 4 + 4?');
    expect((await listCorrections(env.http, { session: sessionId })).corrections).toEqual([]);
  });
});
