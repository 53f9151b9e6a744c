import { describe, expect, it } from 'vitest';
import { LESSONS_LIMITS, type CorrectionRecord } from '@interthought/protocol';
import { GUIDANCE_HEADER, TOOL_BONUS, jaccard, lessonLine, pickLessons, taskWords, writeGuidance } from '../../../src/corrections/lessons/index.js';

// The §26.4 rule, pure: which corrections match a run and in which order, and the guidance they become.

let ids = 0;
function record(task: string, extra: Partial<CorrectionRecord> = {}): CorrectionRecord {
  ids++;
  return {
    sessionId: `session${ids}`.padEnd(21, 'x'),
    stepId: `step${ids}`.padEnd(21, 'x'),
    correctedStepId: `fixed${ids}`.padEnd(21, 'x'),
    index: 1,
    kind: 'final_answer',
    correction: 'edited',
    before: '216',
    after: '180',
    by: 'u-ada',
    at: `2026-11-29T16:${String(ids % 60).padStart(2, '0')}:00.000Z`,
    task,
    agent: 'tutor',
    ...extra,
  };
}

describe('task words and their Jaccard index', () => {
  it('takes the lower-cased words of 3 or more letters, each once, in any script', () => {
    expect([...taskWords('What is 25% off the Price? the PRICE, at 240 €')]).toEqual(['what', 'off', 'the', 'price']);
    expect([...taskWords('Größe über Maße')]).toEqual(['größe', 'über', 'maße']);
  });

  it('splits Chinese, Japanese and Korean runs into character pairs, beside the words of other scripts', () => {
    expect([...taskWords('巴黎今天天气')]).toEqual(['巴黎', '黎今', '今天', '天天', '天气']);
    expect([...taskWords('用 Python 算 25% 折扣')]).toEqual(['用', '算', '折扣', 'python']);
    expect([...taskWords('東京の天気')]).toEqual(['東京', '京の', 'の天', '天気']);
    expect([...taskWords('서울 날씨')]).toEqual(['서울', '날씨']);
  });

  it('lets two Chinese tasks about the same thing match, and two about different things not', () => {
    const task = (text: string) => taskWords(text);
    expect(jaccard(task('巴黎今天的天气怎么样？'), task('巴黎明天的天气怎么样？'))).toBeGreaterThanOrEqual(0.2);
    expect(jaccard(task('巴黎今天的天气怎么样？'), task('把这首诗翻译成法语'))).toBeLessThan(0.2);
  });

  it('is shared words over all words, 0 for two empty sets', () => {
    expect(jaccard(taskWords('what discount price'), taskWords('what discount total'))).toBeCloseTo(2 / 4);
    expect(jaccard(new Set(), new Set())).toBe(0);
  });
});

describe('pickLessons', () => {
  const run = { task: 'What is 25% off a price of 360 dollars?', tools: ['calculator'], max: 3 };

  it('leaves out a task below the similarity threshold, whatever its tool, and user messages and corrections of a lessons step', () => {
    const unrelated = record('Translate this poem into French', { kind: 'tool_call', tool: 'calculator' });
    const similar = record('What is 25% off a price of 240 dollars?');
    const ownMessage = record('What is 25% off a price of 240 dollars?', { kind: 'user_message' });
    const ofLessons = record('What is 25% off a price of 240 dollars?', { kind: 'thought', before: `${GUIDANCE_HEADER}\n- When asked …`, after: LESSONS_LIMITS.dropped });
    expect(jaccard(taskWords(run.task), taskWords(unrelated.task))).toBeLessThan(LESSONS_LIMITS.minTaskSimilarity);
    expect(pickLessons(run, [unrelated, similar, ownMessage, ofLessons])).toEqual([similar]);
  });

  it('ranks a correction of a call of a tool the run may call above a merely similar task, then the newest on ties, at most max', () => {
    const older = record('What is 25% off a price of 240 dollars?', { at: '2026-11-01T10:00:00.000Z' });
    const newer = record('What is 25% off a price of 240 dollars?', { at: '2026-11-02T10:00:00.000Z' });
    const withTool = record('What is 25% off a price of 240 dollars?', { kind: 'tool_call', tool: 'calculator', at: '2026-10-01T10:00:00.000Z' });
    const otherTool = record('What is 25% off a price of 240 dollars?', { kind: 'tool_call', tool: 'web_search', at: '2026-10-01T10:00:00.000Z' });
    expect(TOOL_BONUS).toBeGreaterThan(0);
    expect(pickLessons(run, [older, otherTool, newer, withTool])).toEqual([withTool, newer, older]);
    expect(pickLessons({ ...run, max: 1 }, [older, newer])).toEqual([newer]);
  });

  it('prefers the closer task to the newer one', () => {
    const close = record('What is 25% off a price of 360 dollars?', { at: '2026-01-01T00:00:00.000Z' });
    const looser = record('What is 25% off a shirt price?', { at: '2026-11-01T00:00:00.000Z' });
    expect(pickLessons(run, [looser, close])).toEqual([close, looser]);
  });
});

describe('the guidance text', () => {
  it('says each lesson on one line: the task, what the agent did, the correction and the note', () => {
    const lesson = record('What is 25% off\n240?', { note: '25% off means a quarter less' });
    const text = writeGuidance([lesson, record('What is 10% of 50?', { kind: 'tool_call', tool: 'calculator', before: '{"expression":"50*0.01"}', after: '{"expression":"50*0.1"}' })]);
    const lines = text.split('\n');
    expect(lines[0]).toBe(GUIDANCE_HEADER);
    expect(lines[1]).toBe('- When asked "What is 25% off 240?", you answered: 216 A person corrected it to: 180 — because 25% off means a quarter less');
    expect(lines[2]).toBe('- When asked "What is 10% of 50?", you called: calculator with {"expression":"50*0.01"} A person corrected it to: {"expression":"50*0.1"}');
    expect(lines).toHaveLength(3);
  });

  it('says a refusal as one, with its reason', () => {
    const refused = record('Delete the logs', { kind: 'tool_call', tool: 'shell', correction: 'rejected', before: '{"cmd":"rm -rf /var/log"}', after: 'never delete logs' });
    expect(lessonLine(refused, 500)).toBe('- When asked "Delete the logs", you called: shell with {"cmd":"rm -rf /var/log"} A person refused the call: never delete logs');
  });

  it('stays within LESSONS_LIMITS.maxChars however long the corrections, one line each', () => {
    const huge = 'x'.repeat(50_000);
    const lessons = Array.from({ length: LESSONS_LIMITS.maxCount }, () => record(`What is ${huge}`, { before: huge, after: huge, note: huge }));
    const text = writeGuidance(lessons);
    expect(text.length).toBeLessThanOrEqual(LESSONS_LIMITS.maxChars);
    expect(text.split('\n')).toHaveLength(LESSONS_LIMITS.maxCount + 1);
    expect(writeGuidance([])).toBe('');
  });
});
