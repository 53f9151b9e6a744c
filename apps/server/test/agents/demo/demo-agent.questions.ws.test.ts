import { ASK_USER_TOOL, type ServerMessage, type Step } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { useServerAndClient } from '../../support/demo-wire.js';

// The demo agent asking, end to end: real WebSocket clients against the real server. The agent's
// ask_user call makes the session wait (PROTOCOL.md §25.1), `input.provide` answers it (§25.2), and
// the agent's next run uses the answer in its final answer (§25.6).
describe('demo agent questions over the wire', () => {
  const wire = useServerAndClient();
  const { next, chainOf } = wire;

  function untilStatus(sessionId: string, from: number, status: string): Promise<ServerMessage> {
    return next(sessionId, from, (frame) => frame.type === 'session.status' && frame.status === status, `session ${sessionId} to be ${status}`);
  }

  /** Wait for the question asked from frame `from` on and for the session to wait; then answer it with `text` and wait for the end. */
  async function answerQuestion(sessionId: string, from: number, text: string): Promise<{ question: string; choices?: string[]; final: Step }> {
    const requested = await next(sessionId, from, (frame) => frame.type === 'input.requested', 'input.requested');
    if (requested.type !== 'input.requested') throw new Error('not a question');
    const waiting = await untilStatus(sessionId, from, 'waiting');
    expect(waiting).toMatchObject({ detail: `Waiting for your answer: ${requested.question}` });
    const mark = wire.client().frames.length;
    const id = wire.client().send({ type: 'input.provide', sessionId, stepId: requested.stepId, text });
    expect(await wire.client().answerTo(id)).toMatchObject({ type: 'input.resolved', stepId: requested.stepId, outcome: 'answered', requestId: id });
    await untilStatus(sessionId, mark, 'completed');
    const chain = chainOf(sessionId);
    const call = chain.find((step) => step.stepId === requested.stepId)!;
    expect(call).toMatchObject({ kind: 'tool_call', tool: ASK_USER_TOOL, question: { state: 'answered' } });
    expect(chain[chain.indexOf(call) + 1]).toMatchObject({ kind: 'observation', tool: ASK_USER_TOOL, content: text, result: { answer: text } });
    return { question: requested.question, ...(requested.choices ? { choices: requested.choices } : {}), final: chain.at(-1)! };
  }

  it('asks which reading is meant, and computes the one the user picks', async () => {
    const mark = wire.client().frames.length;
    const sessionId = await wire.client().createSession('What is half of 3 squared?', { agent: 'demo' });
    const { question, choices, final } = await answerQuestion(sessionId, mark, '(3 ÷ 2)^2');
    expect(question).toBe('Which reading of "half of 3 squared" do you mean?');
    expect(choices).toEqual(['(3^2) ÷ 2', '(3 ÷ 2)^2']);
    expect(final).toMatchObject({ kind: 'final_answer', content: '(3 ÷ 2)^2 = 2.25, so the answer is 2.25.' });
  });

  it('asks for a number the task lacks, and uses the one given', async () => {
    const mark = wire.client().frames.length;
    const sessionId = await wire.client().createSession('价格的15%是多少？', { agent: 'demo' });
    const { question, choices, final } = await answerQuestion(sessionId, mark, '80元');
    expect(question).toBe('价格是多少？');
    expect(choices).toBeUndefined();
    expect(final).toMatchObject({ kind: 'final_answer', content: '80元的15%是12元。' });
  });

  it('asks which number a follow-up replaces, and recomputes with the one picked', async () => {
    const start = wire.client().frames.length;
    const sessionId = await wire.client().createSession('Tom has 12 apples and 15 pears. How many fruits in total?', { agent: 'demo' });
    await untilStatus(sessionId, start, 'completed');
    const mark = wire.client().frames.length;
    wire.client().send({ type: 'session.message', sessionId, text: 'What if it were 25?' });
    const { question, choices, final } = await answerQuestion(sessionId, mark, '12');
    expect(question).toBe('Which number should 25 replace?');
    expect(choices).toEqual(['15', '12']);
    expect(final.kind).toBe('final_answer');
    expect(final.content).toMatch(/^With 25 instead of 12: .*\b40\b/u);
  });

  it('does what a rejection\'s reason says instead: converts to kilograms, and that call waits for approval too', async () => {
    const mark = wire.client().frames.length;
    const sessionId = await wire.client().createSession('How many grams is 5 pounds?', { agent: 'demo', options: { approve: ['unit_converter'] } });
    const first = await next(sessionId, mark, (frame) => frame.type === 'approval.requested', 'the first approval.requested');
    if (first.type !== 'approval.requested') throw new Error('no approval');
    expect(first).toMatchObject({ tool: 'unit_converter', input: { value: 5, from: 'lb', to: 'g' } });
    const rejectedAt = wire.client().frames.length;
    wire.client().send({ type: 'tool.reject', sessionId, stepId: first.stepId, reason: 'convert to kilograms instead' });
    const second = await next(sessionId, rejectedAt, (frame) => frame.type === 'approval.requested', 'the second approval.requested');
    if (second.type !== 'approval.requested') throw new Error('no approval');
    expect(second).toMatchObject({ tool: 'unit_converter', input: { value: 5, from: 'lb', to: 'kg' } });
    const approvedAt = wire.client().frames.length;
    wire.client().send({ type: 'tool.approve', sessionId, stepId: second.stepId });
    await untilStatus(sessionId, approvedAt, 'completed');
    const chain = chainOf(sessionId);
    expect(chain.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(chain[3]).toMatchObject({ result: { refused: true, reason: 'convert to kilograms instead' } });
    expect(chain.at(-1)!.content).toBe('As you asked, in kilograms: 5 pounds is about 2.27 kilograms.');
  });
});
