import { ASK_USER_TOOL, parseAskUserInput, type Step } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import type { RecordingSink } from '../../support/recording-sink.js';
import { answered, asChain, converse, extend, refusedAt, runDemo, unanswered, withMessage } from './demo-harness.js';

// The demo agent asks with `ask_user` where a question settles the task (PROTOCOL.md §25.1), and
// goes on from the answer's observation on its next run (§25.6). The core's side (the wait and
// `input.provide`) is exercised over a real WebSocket in demo-agent.questions.ws.test.ts.

/** The question a run ended with: the `ask_user` call's input. */
function questionOf(sink: RecordingSink): { question: string; choices?: string[] } | undefined {
  const call = sink.steps.at(-1);
  if (call?.kind !== 'tool_call' || call.tool !== ASK_USER_TOOL) return undefined;
  return parseAskUserInput(call.content);
}

function calculatorInputs(sink: RecordingSink): unknown[] {
  return sink.steps.filter((step) => step.kind === 'tool_call' && step.tool !== ASK_USER_TOOL).map((step) => JSON.parse(step.content));
}

function answerOf(sink: RecordingSink): string {
  return sink.last('final_answer')?.content ?? '';
}

/** The task's run, ending in its question: the recording and the chain it leaves. */
async function asked(task: string): Promise<{ sink: RecordingSink; chain: Step[] }> {
  const sink = await runDemo(task);
  return { sink, chain: asChain(sink.steps) };
}

/** The run after the user answers the question at the chain's head. */
function afterAnswer(task: string, chain: readonly Step[], text: string): Promise<RecordingSink> {
  return runDemo(task, answered(chain, text));
}

const FRUIT = 'Tom has 12 apples and 15 pears. How many fruits in total?';
const APPLES_ZH = '小明有12个苹果，吃了3个，又买了5个，现在有几个？';

/** The task's run, then a message that could change more than one number: the chain ending in the agent's question. */
async function ambiguousFollowUp(task: string, message: string): Promise<{ turn: RecordingSink; chain: Step[] }> {
  const { turns, chain } = await converse(task, [message]);
  return { turn: turns[1]!, chain };
}

describe('demo agent asks which number a follow-up replaces', () => {
  it('asks "Which number should 25 replace?" with the candidates as choices, and computes nothing yet', async () => {
    const { turn } = await ambiguousFollowUp(FRUIT, 'What if it were 25?');
    expect(turn.kinds()).toEqual(['thought', 'tool_call']);
    expect(turn.last('thought')?.content).toBe("25 could replace 15 and 12; rather than guess, I'll ask you which.");
    expect(questionOf(turn)).toEqual({ question: 'Which number should 25 replace?', choices: ['15', '12'] });
  });

  it('replaces the number the user clicked and recomputes with it', async () => {
    const { chain } = await ambiguousFollowUp(FRUIT, 'What if it were 25?');
    const next = await afterAnswer(FRUIT, chain, '12');
    expect(next.kinds()).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(next.steps[0]?.content).toContain('use 25 instead of 12');
    expect(calculatorInputs(next)).toEqual([{ expression: '25 + 15' }]);
    expect(answerOf(next)).toContain('40');
  });

  it.each([
    ['the apples', '25 + 15'],
    ['replace the apple count', '25 + 15'],
    ['pears', '12 + 25'],
  ])('takes an answer that names what a number counts: "%s" computes %s', async (reply, expression) => {
    const { chain } = await ambiguousFollowUp(FRUIT, 'What if it were 25?');
    expect(calculatorInputs(await afterAnswer(FRUIT, chain, reply))).toEqual([{ expression }]);
  });

  it('takes an answer in the user\'s own words that names one of the numbers', async () => {
    const { chain } = await ambiguousFollowUp(FRUIT, 'What if it were 25?');
    const next = await afterAnswer(FRUIT, chain, 'the 15 pears');
    expect(calculatorInputs(next)).toEqual([{ expression: '12 + 25' }]);
    expect(answerOf(next)).toContain('37');
  });

  it('asks in Chinese, and uses the answer', async () => {
    const { turn, chain } = await ambiguousFollowUp(APPLES_ZH, '改成 20');
    expect(questionOf(turn)).toEqual({ question: '20要替换哪个数？', choices: ['12', '5', '3'] });
    const next = await afterAnswer(APPLES_ZH, chain, '5');
    expect(calculatorInputs(next)).toEqual([{ expression: '12 - 3 + 20' }]);
    expect(answerOf(next)).toBe('用20代替5：小明现在有29个苹果。');
  });

  it('builds later follow-ups on the question as the answer settled it', async () => {
    const { chain } = await ambiguousFollowUp(FRUIT, 'What if it were 25?');
    const next = await afterAnswer(FRUIT, chain, '12');
    const settled = extend(answered(chain, '12'), next.steps);
    const later = await runDemo(FRUIT, withMessage(settled, 'What if it were 30 instead of 15?'));
    expect(calculatorInputs(later)).toEqual([{ expression: '25 + 30' }]);
  });

  it('changes nothing when the answer names none of the numbers, and says so', async () => {
    const { chain } = await ambiguousFollowUp(FRUIT, 'What if it were 25?');
    const next = await afterAnswer(FRUIT, chain, 'neither of them');
    expect(next.kinds()).toEqual(['thought', 'final_answer']);
    expect(next.steps[0]?.content).toBe('Your answer "neither of them" names none of 15 and 12.');
    expect(answerOf(next)).toContain('My previous answer, 27, still stands.');
  });

  it('changes nothing when the question timed out', async () => {
    const { chain } = await ambiguousFollowUp(FRUIT, 'What if it were 25?');
    const next = await runDemo(FRUIT, unanswered(chain));
    expect(next.kinds()).toEqual(['thought', 'final_answer']);
    expect(answerOf(next)).toBe('I\'m not sure which number 25 should replace: 15 and 12. Say, for example, "Use 25 instead of 15". My previous answer, 27, still stands.');
  });
});

describe('demo agent asks which reading of an ambiguous task is meant', () => {
  const TASK = 'What is half of 3 squared?';

  it('asks with both readings as choices', async () => {
    const { sink } = await asked(TASK);
    expect(sink.kinds()).toEqual(['thought', 'tool_call']);
    expect(questionOf(sink)).toEqual({ question: 'Which reading of "half of 3 squared" do you mean?', choices: ['(3^2) ÷ 2', '(3 ÷ 2)^2'] });
  });

  it.each([
    ['(3^2) ÷ 2', '(3^2) / 2', '(3^2) ÷ 2 = 4.5, so the answer is 4.5.'],
    ['(3 ÷ 2)^2', '(3 / 2)^2', '(3 ÷ 2)^2 = 2.25, so the answer is 2.25.'],
    ['(3/2)²', '(3 / 2)^2', '(3 ÷ 2)^2 = 2.25, so the answer is 2.25.'],
    ['square it first', '(3^2) / 2', '(3^2) ÷ 2 = 4.5, so the answer is 4.5.'],
    ['the second one', '(3 / 2)^2', '(3 ÷ 2)^2 = 2.25, so the answer is 2.25.'],
  ])('answered "%s", computes %s', async (reply, expression, answer) => {
    const { chain } = await asked(TASK);
    const next = await afterAnswer(TASK, chain, reply);
    expect(calculatorInputs(next)).toEqual([{ expression }]);
    expect(answerOf(next)).toBe(answer);
  });

  it('asks in Chinese, and computes the reading picked', async () => {
    const task = '一半的3的平方是多少？';
    const { sink, chain } = await asked(task);
    expect(questionOf(sink)).toEqual({ question: '“一半的3的平方”指的是哪一种？', choices: ['(3^2) ÷ 2', '(3 ÷ 2)^2'] });
    const next = await afterAnswer(task, chain, '先平方');
    expect(calculatorInputs(next)).toEqual([{ expression: '(3^2) / 2' }]);
    expect(answerOf(next)).toBe('(3^2) ÷ 2 = 4.5，答案是 4.5。');
  });

  it('keeps the reading whole inside a longer calculation', async () => {
    const task = 'What is 10 minus half of 3 squared?';
    const { chain } = await asked(task);
    const next = await afterAnswer(task, chain, '(3 ÷ 2)^2');
    expect(answerOf(next)).toContain('7.75');
  });

  it('computes neither reading when the answer picks none', async () => {
    const { chain } = await asked(TASK);
    const next = await afterAnswer(TASK, chain, 'whatever');
    expect(next.kinds()).toEqual(['thought', 'final_answer']);
    expect(answerOf(next)).toBe('I could not tell which reading "whatever" means, so I have computed neither. Ask again with the one you mean, "(3^2) ÷ 2" or "(3 ÷ 2)^2".');
  });
});

describe('demo agent asks for a number the task does not give', () => {
  it('asks for the price of "What is 15% of the price?", then uses the number given', async () => {
    const task = 'What is 15% of the price?';
    const { sink, chain } = await asked(task);
    expect(sink.kinds()).toEqual(['thought', 'tool_call']);
    expect(questionOf(sink)).toEqual({ question: 'What is the price?' });
    const next = await afterAnswer(task, chain, 'It is $80.');
    expect(next.steps[0]?.content).toMatch(/^The price is \$80, as you told me\./u);
    expect(calculatorInputs(next)).toEqual([{ expression: '80 * 15%' }]);
    expect(answerOf(next)).toBe('15% of $80 is $12.');
  });

  it('asks in Chinese', async () => {
    const task = '价格的15%是多少？';
    const { sink, chain } = await asked(task);
    expect(questionOf(sink)).toEqual({ question: '价格是多少？' });
    const next = await afterAnswer(task, chain, '80元');
    expect(answerOf(next)).toBe('80元的15%是12元。');
  });

  it('asks for what the user calls theirs as theirs', async () => {
    const { sink } = await asked('How much is 20% of my salary?');
    expect(questionOf(sink)).toEqual({ question: 'What is your salary?' });
  });

  it('makes no number up when the answer gives none', async () => {
    const task = 'What is 15% of the price?';
    const { chain } = await asked(task);
    const next = await afterAnswer(task, chain, 'I forgot');
    expect(next.kinds()).toEqual(['thought', 'final_answer']);
    expect(answerOf(next)).toBe('I could not read a number in your answer "I forgot", so I cannot compute 15% of the price; I will not make a number up. Ask again with the price in it.');
  });
});

describe('demo agent and the chain around its question', () => {
  it('writes nothing while the chain ends in its unanswered question (the server asks it)', async () => {
    const { chain } = await asked('What is 15% of the price?');
    const again = await runDemo('What is 15% of the price?', chain);
    expect(again.steps).toEqual([]);
  });

  it('goes on from the answer to a question the user rewrote', async () => {
    const { chain } = await ambiguousFollowUp(FRUIT, 'What if it were 25?');
    const call = chain.at(-1)!;
    const rewritten: Step = {
      ...call,
      stepId: 'question-fix',
      status: 'corrected',
      content: JSON.stringify({ question: 'Should 25 replace the apples (12) or the pears (15)?' }),
      correctionOf: call.stepId,
      correction: { previousContent: call.content, at: '2025-01-01T00:00:00.000Z' },
    };
    const next = await afterAnswer(FRUIT, [...chain.slice(0, -1), rewritten], 'the pears');
    expect(calculatorInputs(next)).toEqual([{ expression: '12 + 25' }]);
  });

  it('reads an answer the user rewrote from its text', async () => {
    const task = 'What is 15% of the price?';
    const { chain } = await asked(task);
    const withAnswer = answered(chain, '$80');
    const answer = withAnswer.at(-1)!;
    const { result: _result, ...rest } = answer;
    const rewritten: Step = { ...rest, stepId: 'answer-fix', status: 'corrected', content: '$200', correctionOf: answer.stepId, correction: { previousContent: '$80', at: '2025-01-01T00:00:00.000Z' } };
    const next = await runDemo(task, [...chain, rewritten]);
    expect(answerOf(next)).toBe('15% of $200 is $30.');
  });
});

describe('demo agent honours what a rejection says to do instead', () => {
  const TASK = 'How many grams is 5 pounds?';

  it('converts to kilograms after "convert to kilograms instead", instead of stopping', async () => {
    const first = await runDemo(TASK);
    const next = await runDemo(TASK, refusedAt(asChain(first.steps), 'unit_converter', 'convert to kilograms instead'));
    expect(next.kinds()).toEqual(['action', 'tool_call', 'observation', 'final_answer']);
    expect(next.steps[0]?.content).toContain('You declined that call and asked for kilograms instead ("convert to kilograms instead")');
    expect(JSON.parse(next.steps[1]!.content)).toEqual({ value: 5, from: 'lb', to: 'kg' });
    expect(answerOf(next)).toBe('As you asked, in kilograms: 5 pounds is about 2.27 kilograms.');
  });

  it('does the same in Chinese', async () => {
    const task = '5磅是多少克？';
    const first = await runDemo(task);
    const next = await runDemo(task, refusedAt(asChain(first.steps), 'unit_converter', '换算成千克'));
    expect(JSON.parse(next.steps[1]!.content)).toEqual({ value: 5, from: 'lb', to: 'kg' });
    expect(answerOf(next)).toBe('按你的要求换算成公斤：5磅等于约2.27公斤。');
  });

  it('stops as before when the reason asks for nothing it can do', async () => {
    const first = await runDemo(TASK);
    const next = await runDemo(TASK, refusedAt(asChain(first.steps), 'unit_converter', 'not now'));
    expect(next.kinds()).toEqual(['final_answer']);
    expect(answerOf(next)).toContain('You declined the unit converter call (your reason: "not now"), so I did not run it.');
  });

  it('does not retry the very call that was refused', async () => {
    const task = 'How many kilograms is 5 pounds?';
    const first = await runDemo(task);
    const next = await runDemo(task, refusedAt(asChain(first.steps), 'unit_converter', 'convert to kilograms instead'));
    expect(next.kinds()).toEqual(['final_answer']);
  });

  it('takes no instruction from a rule\'s refusal, only from a user\'s', async () => {
    const first = await runDemo(TASK);
    const next = await runDemo(TASK, refusedAt(asChain(first.steps), 'unit_converter', 'convert to kilograms instead', 'policy'));
    expect(next.kinds()).toEqual(['final_answer']);
  });

  it('does not take a unit the reason turns down', async () => {
    const first = await runDemo(TASK);
    const next = await runDemo(TASK, refusedAt(asChain(first.steps), 'unit_converter', 'I do not want it in kilograms'));
    expect(next.kinds()).toEqual(['final_answer']);
  });
});
