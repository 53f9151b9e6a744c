import type { Step } from '@interthought/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { createDemoAgent } from '../../../src/agents/demo/index.js';
import { SessionManager } from '../../../src/core/session-manager.js';
import { MemoryEventStore } from '../../../src/store/memory-event-store.js';
import { createDefaultTools } from '../../../src/tools/index.js';
import type { RecordingSink } from '../../support/recording-sink.js';
import { asChain, converse, correct, extend, runDemo, withMessage } from './demo-harness.js';

const FIVE_KINDS = ['thought', 'action', 'tool_call', 'observation', 'final_answer'];

/** Every tool input of a run, in order, parsed. */
function toolInputs(sink: RecordingSink): unknown[] {
  return sink.steps.filter((step) => step.kind === 'tool_call').map((step) => JSON.parse(step.content));
}

function answerOf(sink: RecordingSink): string {
  return sink.last('final_answer')?.content ?? '';
}

/** The task's run, then one message: the recording of the agent's answer to it. */
async function followUp(task: string, message: string): Promise<RecordingSink> {
  const { turns } = await converse(task, [message]);
  return turns[1]!;
}

describe('demo agent: a follow-up that works on the previous answer', () => {
  it.each([
    ['Add 10 to that.', '36 + 10', '36 + 10 = 46, so the answer is 46.'],
    ['Now subtract 5', '36 - 5', '36 − 5 = 31, so the answer is 31.'],
    ['Multiply it by 3', '36 * 3', '36 × 3 = 108, so the answer is 108.'],
    ['Divide that by 4', '36 / 4', '36 ÷ 4 = 9, so the answer is 9.'],
    ['What is half of that?', '36 / 2', '36 ÷ 2 = 18, so the answer is 18.'],
    ['Double it', '36 * 2', '36 × 2 = 72, so the answer is 72.'],
    ['What is 10% of that?', '36 * 10%', '36 × 10% = 3.6, so the answer is 3.6.'],
    ['Add 10% to that', '36 + 10%', '36 + 10% = 39.6, so the answer is 39.6.'],
    ['+ 10', '36 + 10', '36 + 10 = 46, so the answer is 46.'],
  ])('"%s" after "15%% of 240 is 36." computes %s with the calculator', async (message, expression, answer) => {
    const turn = await followUp('What is 15% of 240?', message);
    expect(turn.kinds()).toEqual(FIVE_KINDS);
    expect(turn.last('thought')?.content).toContain('The previous answer is 36.');
    expect(toolInputs(turn)).toEqual([{ expression }]);
    expect(answerOf(turn)).toBe(answer);
  });

  it.each([
    ['再加 10 呢？', '36 + 10', '36 + 10 = 46，答案是46。'],
    ['减去 5', '36 - 5', '36 − 5 = 31，答案是31。'],
    ['乘以 3', '36 * 3', '36 × 3 = 108，答案是108。'],
    ['再除以 4', '36 / 4', '36 ÷ 4 = 9，答案是9。'],
    ['它的一半是多少？', '36 / 2', '36 ÷ 2 = 18，答案是18。'],
    ['翻倍', '36 * 2', '36 × 2 = 72，答案是72。'],
    ['乘以三', '36 * 3', '36 × 3 = 108，答案是108。'],
    ['打八折呢', '36 * 80%', '36 × 80% = 28.8，答案是28.8。'],
  ])('“%s” after “240的15%%是36。” computes %s with the calculator', async (message, expression, answer) => {
    const turn = await followUp('240的15%是多少？', message);
    expect(turn.kinds()).toEqual(FIVE_KINDS);
    expect(turn.last('thought')?.content).toContain('上一个答案是36。');
    expect(toolInputs(turn)).toEqual([{ expression }]);
    expect(answerOf(turn)).toBe(answer);
  });

  it('does several operations of one message one calculator call each, in the order said', async () => {
    const turn = await followUp('What is 15% of 240?', 'Add 10 and then double it');
    expect(toolInputs(turn)).toEqual([{ expression: '36 + 10' }, { expression: '46 * 2' }]);
    expect(answerOf(turn)).toBe('46 × 2 = 92, so the answer is 92.');
  });

  it('keeps the unit of a converted answer', async () => {
    const turn = await followUp('How many kilometres is 3 miles?', 'Double it');
    expect(toolInputs(turn)).toEqual([{ expression: '4.828032 * 2' }]);
    expect(answerOf(turn)).toBe('4.828032 × 2 = 9.656064, so the answer is about 9.66 kilometres.');
  });

  it('moves a date answer by days with the date calculator', async () => {
    const turn = await followUp('What date is 30 days after 2024-01-01?', 'Add 10 days to that');
    expect(toolInputs(turn)).toEqual([{ operation: 'add_days', start: '2024-01-31', days: 10 }]);
    expect(answerOf(turn)).toBe('10 days after 2024-01-31 is 2024-02-10, a Saturday.');
  });

  it('answers in the language of the message, not the task', async () => {
    const chinese = await followUp('What is 15% of 240?', '再加 10 呢？');
    expect(answerOf(chinese)).toBe('36 + 10 = 46，答案是46。');
    const english = await followUp('240的15%是多少？', 'Add 10 to that.');
    expect(answerOf(english)).toBe('36 + 10 = 46, so the answer is 46.');
  });

  it('works on the number of an answer the user rewrote', async () => {
    const first = await runDemo('What is 15% of 240?');
    const chain = withMessage(correct(asChain(first.steps), 'final_answer', 'It is 85.'), 'Add 10 to that.');
    const turn = await runDemo('What is 15% of 240?', chain);
    expect(toolInputs(turn)).toEqual([{ expression: '85 + 10' }]);
  });
});

describe('demo agent: a follow-up that changes a number of the question', () => {
  it.each([
    ['What if it were 25 %?', '240 * 25%', 'With 25% instead of 15%: 25% of 240 is 60.'],
    ['What about 25% instead?', '240 * 25%', 'With 25% instead of 15%: 25% of 240 is 60.'],
    ['Use 300 instead of 240', '300 * 15%', 'With 300 instead of 240: 15% of 300 is 45.'],
    ['300?', '300 * 15%', 'With 300 instead of 240: 15% of 300 is 45.'],
  ])('"%s" solves the task again with %s', async (message, expression, answer) => {
    const turn = await followUp('What is 15% of 240?', message);
    expect(turn.kinds()).toEqual(FIVE_KINDS);
    expect(turn.last('thought')?.content).toMatch(/^You asked me to use .* instead of .*, so I'll solve the question again with that change\./u);
    expect(toolInputs(turn)).toEqual([{ expression }]);
    expect(answerOf(turn)).toBe(answer);
  });

  it.each([
    ['如果是 25% 呢？', '240 * 25%', '用25%代替15%：240的25%是60。'],
    ['改成 300', '300 * 15%', '用300代替240：300的15%是45。'],
    ['用 300 代替 240', '300 * 15%', '用300代替240：300的15%是45。'],
    ['把240改成300', '300 * 15%', '用300代替240：300的15%是45。'],
  ])('“%s” solves the task again with %s', async (message, expression, answer) => {
    const turn = await followUp('240的15%是多少？', message);
    expect(toolInputs(turn)).toEqual([{ expression }]);
    expect(answerOf(turn)).toBe(answer);
  });

  it('changes the price of a word problem, leaving its count', async () => {
    const turn = await followUp('A pen costs $1.5. How much do 12 pens cost?', 'What if a pen cost $2?');
    expect(toolInputs(turn)).toEqual([{ expression: '2 * 12' }]);
    expect(answerOf(turn)).toBe('With $2 instead of $1.50: The total cost is $24.');
  });

  it('changes the date of a date question', async () => {
    const turn = await followUp('What date is 30 days after 2024-01-01?', 'What if it were 2024-02-01?');
    expect(toolInputs(turn)).toEqual([{ operation: 'add_days', start: '2024-02-01', days: 30 }]);
    expect(answerOf(turn)).toBe('With 2024-02-01 instead of 2024-01-01: 30 days after 2024-02-01 is 2024-03-02, a Saturday.');
  });

  it('asks which number is meant when a new number could replace several, and computes nothing', async () => {
    const turn = await followUp('小明有12个苹果，吃了3个，又买了5个，现在有几个？', '改成 20');
    // The question is an ask_user call (PROTOCOL.md §25.1); demo-agent.questions.test.ts follows it to the answer.
    expect(turn.kinds()).toEqual(['thought', 'tool_call']);
    expect(turn.last('tool_call')).toMatchObject({ tool: 'ask_user', content: JSON.stringify({ question: '20要替换哪个数？', choices: ['12', '5', '3'] }) });
    expect(toolInputs(turn)).toHaveLength(1);
  });

  it('takes a replacement that names both numbers where a bare one would be ambiguous', async () => {
    const turn = await followUp('小明有12个苹果，吃了3个，又买了5个，现在有几个？', '用 20 代替 12');
    expect(toolInputs(turn)).toEqual([{ expression: '20 - 3 + 5' }]);
    expect(answerOf(turn)).toBe('用20代替12：小明现在有22个苹果。');
  });

  it('says so when the number to replace is not in the question', async () => {
    const turn = await followUp('What is 15% of 240?', 'Use 300 instead of 250');
    expect(turn.kinds()).toEqual(['thought', 'final_answer']);
    expect(answerOf(turn)).toBe('I could not find 250 in "What is 15% of 240?", so I have not changed anything. My previous answer, 36, still stands.');
  });
});

describe('demo agent: a new question in a message', () => {
  it('solves "What is 7 * 8?" as a task of its own', async () => {
    const turn = await followUp('What is 15% of 240?', 'What is 7 * 8?');
    expect(turn.kinds()).toEqual(FIVE_KINDS);
    expect(toolInputs(turn)).toEqual([{ expression: '7 * 8' }]);
    expect(answerOf(turn)).toBe('7 × 8 = 56, so the answer is 56.');
  });

  it('solves “3 英里是多少公里？” with the unit converter, in Chinese', async () => {
    const turn = await followUp('What is 15% of 240?', '3 英里是多少公里？');
    expect(toolInputs(turn)).toEqual([{ value: 3, from: 'mi', to: 'km' }]);
    expect(answerOf(turn)).toBe('3英里等于约4.83公里。');
  });

  it('takes later follow-ups as referring to the new question', async () => {
    const { turns } = await converse('What is 15% of 240?', ['3 英里是多少公里？', '如果是 5 英里呢？', 'Double it']);
    expect(toolInputs(turns[2]!)).toEqual([{ value: 5, from: 'mi', to: 'km' }]);
    expect(toolInputs(turns[3]!)).toEqual([{ expression: '8.04672 * 2' }]);
    expect(answerOf(turns[3]!)).toBe('8.04672 × 2 = 16.09344, so the answer is about 16.09 kilometres.');
  });
});

describe('demo agent: a message it does not understand', () => {
  it.each([
    ['make it nicer', 'I did not understand what to change from "make it nicer", so I have not computed anything new. My previous answer, 36, still stands. I understand follow-ups such as "Add 10 to that." or "What if it were 25%?", and new questions such as "What is 7 * 8?".'],
    ['hmm', 'I did not understand what to change from "hmm", so I have not computed anything new. My previous answer, 36, still stands. I understand follow-ups such as "Add 10 to that." or "What if it were 25%?", and new questions such as "What is 7 * 8?".'],
    ['I have 5 cats', 'I did not understand what to change from "I have 5 cats", so I have not computed anything new. My previous answer, 36, still stands. I understand follow-ups such as "Add 10 to that." or "What if it were 25%?", and new questions such as "What is 7 * 8?".'],
    ['让它好看点', '我没听懂“让它好看点”要我改什么，所以没有重新计算。我上一个答案36仍然有效。我能听懂这样的追问：“再加 10 呢？”“如果是 25% 呢？”，也能回答新的问题，比如“7 × 8 是多少？”。'],
  ])('answers "%s" honestly, with no tool call', async (message, answer) => {
    const turn = await followUp('What is 15% of 240?', message);
    expect(turn.kinds()).toEqual(['thought', 'final_answer']);
    expect(answerOf(turn)).toBe(answer);
  });

  it('still works on the previous answer after a message it did not understand', async () => {
    const { turns } = await converse('What is 15% of 240?', ['hmm', 'Add 10 to that.']);
    expect(toolInputs(turns[2]!)).toEqual([{ expression: '36 + 10' }]);
  });

  it('gives the open-task plan for a request a language model would answer', async () => {
    const turn = await followUp('What is 15% of 240?', 'Plan a trip to Kyoto');
    expect(turn.kinds()).toEqual(['thought', 'action', 'final_answer']);
    expect(turn.last('action')?.content).toContain('Kyoto');
  });
});

describe('demo agent: steering a run that has not finished', () => {
  it('re-plans the task with a changed percentage after its first action', async () => {
    const first = await runDemo('What is 15% of 240?');
    const chain = withMessage(asChain(first.steps).slice(0, 2), 'Use 25% instead.');
    const turn = await runDemo('What is 15% of 240?', chain);
    expect(turn.kinds()).toEqual(FIVE_KINDS);
    expect(toolInputs(turn)).toEqual([{ expression: '240 * 25%' }]);
    expect(answerOf(turn)).toBe('Following your instruction (25% instead of 15%): 25% of 240 is 60.');
  });

  it('re-plans a Chinese word problem with the price the user gives after the first observation', async () => {
    const task = '每支笔1.5元，买12支笔要多少钱？';
    const first = await runDemo(task);
    const chain = withMessage(asChain(first.steps).slice(0, 4), '用 2024 年的价格：每支笔 2 元');
    const turn = await runDemo(task, chain);
    expect(turn.kinds()).toEqual(FIVE_KINDS);
    expect(toolInputs(turn)).toEqual([{ expression: '2 * 12' }]);
    expect(answerOf(turn)).toBe('按照你的要求（用2元代替1.5元），一共需要24元。');
  });

  it('solves the task, then applies an operation the user asks for', async () => {
    const first = await runDemo('What is 15% of 240?');
    const chain = withMessage(asChain(first.steps).slice(0, 2), 'Add 10 to that');
    const turn = await runDemo('What is 15% of 240?', chain);
    expect(toolInputs(turn)).toEqual([{ expression: '240 * 15%' }, { expression: '36 + 10' }]);
    expect(answerOf(turn)).toBe('Following your instruction (add 10 to it): 36 + 10 = 46, so the answer is 46.');
  });

  it('switches to a new question', async () => {
    const first = await runDemo('What is 15% of 240?');
    const chain = withMessage(asChain(first.steps).slice(0, 2), 'What is 7 * 8?');
    const turn = await runDemo('What is 15% of 240?', chain);
    expect(toolInputs(turn)).toEqual([{ expression: '7 * 8' }]);
    expect(answerOf(turn)).toBe('As you asked, I answered your new question: 7 × 8 = 56, so the answer is 56.');
  });

  it('says honestly that it did not understand a steering message', async () => {
    const first = await runDemo('What is 15% of 240?');
    const chain = withMessage(asChain(first.steps).slice(0, 4), 'hmm');
    const turn = await runDemo('What is 15% of 240?', chain);
    expect(turn.kinds()).toEqual(['thought', 'final_answer']);
    expect(answerOf(turn)).toMatch(/^I did not understand what to change from "hmm", so I have not computed anything new\. I understand/u);
  });

  it('builds a message on the one before it when both reach the chain before a run (queued messages)', async () => {
    const first = await runDemo('What is 15% of 240?');
    const chain = withMessage(withMessage(asChain(first.steps), 'What is 7 * 8?'), 'Add 10');
    const turn = await runDemo('What is 15% of 240?', chain);
    expect(toolInputs(turn)).toEqual([{ expression: '7 * 8' }, { expression: '56 + 10' }]);
    expect(answerOf(turn)).toContain('56 + 10 = 66');
  });

  it('continues a steered turn from its own steps when it resumes', async () => {
    const first = await runDemo('What is 15% of 240?');
    const steered = withMessage(asChain(first.steps).slice(0, 2), 'Use 25% instead.');
    const turn = await runDemo('What is 15% of 240?', steered);
    const upToCall = extend(steered, turn.steps.slice(0, 3));
    const resumed = await runDemo('What is 15% of 240?', upToCall);
    expect(resumed.kinds()).toEqual(['observation', 'final_answer']);
    expect(answerOf(resumed)).toBe('Following your instruction (25% instead of 15%): 25% of 240 is 60.');
  });
});

describe('demo agent: a conversation of several turns', () => {
  it('refers each follow-up to the latest answer, and a change of the task to every operation since', async () => {
    const { turns } = await converse('What is 15% of 240?', ['Add 10 to that.', 'Double it', 'What if it were 25%?', '用 300 代替 240']);
    expect(toolInputs(turns[1]!)).toEqual([{ expression: '36 + 10' }]);
    expect(toolInputs(turns[2]!)).toEqual([{ expression: '46 * 2' }]);
    expect(toolInputs(turns[3]!)).toEqual([{ expression: '240 * 25%' }, { expression: '60 + 10' }, { expression: '70 * 2' }]);
    expect(answerOf(turns[3]!)).toBe('With 25% instead of 15%: 70 × 2 = 140, so the answer is 140.');
    expect(toolInputs(turns[4]!)).toEqual([{ expression: '300 * 25%' }, { expression: '75 + 10' }, { expression: '85 * 2' }]);
    expect(answerOf(turns[4]!)).toBe('用300代替240：85 × 2 = 170，答案是170。');
  });

  it('changes the operand of the latest follow-up without solving the task again', async () => {
    const { turns } = await converse('What is 15% of 240?', ['Add 10 to that.', 'What if it were 20?']);
    expect(toolInputs(turns[2]!)).toEqual([{ expression: '36 + 20' }]);
    expect(answerOf(turns[2]!)).toBe('With 20 instead of 10: 36 + 20 = 56, so the answer is 56.');
  });

  it('reads a corrected message with its corrected content', async () => {
    const { chain } = await converse('What is 15% of 240?', ['Add 10 to that.']);
    const edited = correct(chain, 'user_message', 'Add 20 to that.');
    const turn = await runDemo('What is 15% of 240?', edited);
    expect(toolInputs(turn)).toEqual([{ expression: '36 + 20' }]);
    expect(answerOf(turn)).toBe('36 + 20 = 56, so the answer is 56.');
  });

  it('takes a corrected thought of a follow-up turn as the calculation to do', async () => {
    const { chain } = await converse('What is 15% of 240?', ['Add 10 to that.']);
    const edited = correct(chain, 'thought', 'The previous answer is 36; the user means 36 + 20.', { nth: 1 });
    const turn = await runDemo('What is 15% of 240?', edited);
    expect(toolInputs(turn)).toEqual([{ expression: '36 + 20' }]);
    expect(answerOf(turn)).toBe('36 + 20 = 56, so the answer is 56.');
  });

  it('emits nothing after the final answer of a later turn', async () => {
    const { chain } = await converse('What is 15% of 240?', ['Add 10 to that.']);
    expect((await runDemo('What is 15% of 240?', chain)).steps).toEqual([]);
  });
});

describe('demo agent: refused tool calls in a conversation', () => {
  /** The chain up to a tool call, then the observation the core writes when the user rejects it. */
  function refusedAt(chain: readonly Step[]): Step[] {
    const call = chain[chain.length - 1]!;
    return [
      ...chain,
      {
        stepId: `${call.stepId}-refused`,
        parentId: call.stepId,
        index: chain.length,
        kind: 'observation',
        status: 'completed',
        content: 'The user rejected this call: not now',
        revision: 0,
        tool: call.tool ?? 'calculator',
        result: { refused: true, by: 'user', reason: 'not now' },
      },
    ];
  }

  it('answers a refused call of a follow-up turn as a refusal', async () => {
    const { chain } = await converse('What is 15% of 240?', ['Add 10 to that.']);
    const turn = await runDemo('What is 15% of 240?', refusedAt(chain.slice(0, chain.length - 2)));
    expect(turn.kinds()).toEqual(['final_answer']);
    expect(answerOf(turn)).toBe(
      'You declined the calculator call (your reason: "not now"), so I did not run it. Without its result I cannot give a reliable answer. To go on, correct the tool call (edit its input) and I will run that instead.',
    );
  });

  it('has no earlier result to work on after a refusal, and says so', async () => {
    const first = await runDemo('What is 15% of 240?');
    const refused = refusedAt(asChain(first.steps).slice(0, 3));
    const chain = extend(refused, (await runDemo('What is 15% of 240?', refused)).steps);
    const turn = await runDemo('What is 15% of 240?', withMessage(chain, 'Add 10 to that.'));
    expect(turn.kinds()).toEqual(['thought', 'final_answer']);
    expect(answerOf(turn)).toMatch(/^There is no earlier result, so I cannot add 10 to it; I have not computed anything\./u);
  });
});

describe('demo agent: long and hostile messages', () => {
  const LONGEST = 20_000;
  const CEILING_MS = 2_500;
  const fill = (unit: string, head = '', tail = ''): string => head + unit.repeat(Math.ceil((LONGEST - head.length - tail.length) / unit.length)).slice(0, LONGEST - head.length - tail.length) + tail;

  it.each([
    ['spaces between numbers', fill(' ', '1', '2')],
    ['many numbers', fill('1 ')],
    ['many operations', fill('add 1 ')],
    ['many Chinese operations', fill('加1')],
    ['many percentages', fill('25% ')],
    ['many cues', fill('what if ', '', '25%')],
    ['many replacements', fill('use 1 instead of 2 ')],
    ['a run of digits', fill('1234567890')],
    ['dates', fill('2024-01-01 ')],
    ['Chinese numerals after operators', fill('乘以三')],
    ['unclosed quotes', fill('“')],
  ])('answers %s within the time limit', async (_name, message) => {
    const { chain } = await converse('What is 15% of 240?', []);
    const started = performance.now();
    const turn = await runDemo('What is 15% of 240?', withMessage(chain, message));
    expect(performance.now() - started).toBeLessThan(CEILING_MS);
    expect(turn.last('final_answer')).toBeDefined();
  });
});

describe('demo agent: conversations through the session core', () => {
  let manager: SessionManager | undefined;
  afterEach(async () => {
    await manager?.shutdown();
    manager = undefined;
  });

  async function chainOf(sessions: SessionManager, sessionId: string): Promise<Step[]> {
    const snapshot = (await sessions.snapshot(sessionId))!;
    return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
  }

  async function untilCompleted(sessions: SessionManager, sessionId: string, steps: number): Promise<void> {
    for (let turn = 0; turn < 20_000; turn++) {
      const snapshot = (await sessions.snapshot(sessionId))!;
      if (snapshot.session.status === 'completed' && snapshot.chain.length >= steps) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    throw new Error(`Gave up waiting for session ${sessionId} to complete with ${steps} steps.`);
  }

  it('answers follow-ups sent with session.message, from the previous answer, with the real calculator', async () => {
    manager = new SessionManager({ store: new MemoryEventStore(), agents: new AgentRegistry('demo').register(createDemoAgent()), tools: createDefaultTools() });
    const { sessionId } = await manager.create({ task: 'What is 15% of 240?', agent: 'demo' });
    await untilCompleted(manager, sessionId, 5);
    await manager.message({ sessionId, text: 'Add 10 to that.' });
    await untilCompleted(manager, sessionId, 11);
    await manager.message({ sessionId, text: '如果是 25% 呢？' });
    await untilCompleted(manager, sessionId, 20);
    const chain = await chainOf(manager, sessionId);
    expect(chain.map((step) => step.kind)).toEqual([
      ...FIVE_KINDS,
      'user_message',
      ...FIVE_KINDS,
      'user_message',
      'thought',
      'action',
      'tool_call',
      'observation',
      'action',
      'tool_call',
      'observation',
      'final_answer',
    ]);
    expect(chain.filter((step) => step.kind === 'observation').map((step) => step.result)).toEqual([
      { expression: '240 * 15%', value: 36 },
      { expression: '36 + 10', value: 46 },
      { expression: '240 * 25%', value: 60 },
      { expression: '60 + 10', value: 70 },
    ]);
    expect(chain.at(-1)!.content).toBe('用25%代替15%：60 + 10 = 70，答案是70。');
  });
});
