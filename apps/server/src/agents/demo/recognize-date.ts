import { say, type Lang } from './language.js';
import type { Outcome, SolvePlan } from './plan.js';
import type { ProblemFacts } from './problem-facts.js';

const DATE = /(\d{4})\s*(?:-|\/|\.|年)\s*(\d{1,2})\s*(?:-|\/|\.|月)\s*(\d{1,2})\s*日?/gu;
const BEFORE = /\b(?:before|earlier|ago|prior to)\b|之前|以前|前/iu;

const WEEKDAYS: ReadonlyArray<[string, string]> = [
  ['Sunday', '星期日'], ['Monday', '星期一'], ['Tuesday', '星期二'], ['Wednesday', '星期三'], ['Thursday', '星期四'], ['Friday', '星期五'], ['Saturday', '星期六'],
];

/** The day of the week of an ISO date, in English and Chinese (the answer states it whenever it names a date). */
function weekdayOf(date: string): [string, string] | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/u.exec(date);
  if (!match) return undefined;
  return WEEKDAYS[new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))).getUTCDay()];
}

function iso(match: RegExpMatchArray): string {
  return `${match[1]}-${(match[2] ?? '').padStart(2, '0')}-${(match[3] ?? '').padStart(2, '0')}`;
}

function daysBetweenPlan(lang: Lang, start: string, end: string): SolvePlan {
  return {
    kind: 'solve',
    lang,
    thought: say(
      lang,
      `The question is how many days lie between ${start} and ${end}. Months have different lengths and leap years add a day, so counting by hand is error-prone.`,
      `问的是${start}和${end}之间相隔多少天。各月天数不同，闰年还多一天，手算容易出错。`,
    ),
    approach: say(lang, 'Counting across months by hand is error-prone.', '跨月手数天数容易出错。'),
    steps: [{ call: () => ({ tool: 'date_calculator', input: { operation: 'days_between', start, end } }) }],
    answer: (outcome: Outcome) => {
      const call = outcome.call;
      if (outcome.value === undefined || call?.tool !== 'date_calculator') return say(lang, 'I have no number of days to report.', '我没有得到天数。');
      const from = call.input.start;
      const to = call.input.end ?? end;
      return say(lang, `There are ${outcome.value} days from ${from} to ${to}.`, `从${from}到${to}相隔${outcome.value}天。`);
    },
  };
}

function addDaysPlan(lang: Lang, start: string, days: number): SolvePlan {
  const later = days >= 0;
  const n = Math.abs(days);
  return {
    kind: 'solve',
    lang,
    thought: say(
      lang,
      `The question is which date is ${n} days ${later ? 'after' : 'before'} ${start}; that crosses month ends, so I'll count on a calendar.`,
      `问的是${start}${later ? '之后' : '之前'}${n}天是哪一天，会跨过月底，所以按日历来算。`,
    ),
    approach: say(lang, 'Calendars are fiddly; a tool is exact.', '日历计算繁琐，交给工具算得准。'),
    steps: [{ call: () => ({ tool: 'date_calculator', input: { operation: 'add_days', start, days } }) }],
    answer: (outcome: Outcome) => addedDaysAnswer(lang, outcome, days),
  };
}

/** The answer to an add_days call, read from the call that ran: "30 days after 2024-01-01 is 2024-01-31, a Wednesday." */
export function addedDaysAnswer(lang: Lang, outcome: Outcome, plannedDays = 0): string {
  const call = outcome.call;
  if (outcome.date === undefined || call?.tool !== 'date_calculator') return say(lang, 'I have no date to report.', '我没有得到日期。');
  const d = call.input.days ?? plannedDays;
  const weekday = weekdayOf(outcome.date);
  return say(
    lang,
    `${Math.abs(d)} days ${d >= 0 ? 'after' : 'before'} ${call.input.start} is ${outcome.date}${weekday ? `, a ${weekday[0]}` : ''}.`,
    `${call.input.start}${d >= 0 ? '之后' : '之前'}${Math.abs(d)}天是${outcome.date}${weekday ? `，${weekday[1]}` : ''}。`,
  );
}

/** "How many days between 2024-01-01 and 2024-03-01?", "What date is 30 days after 2024-01-01?" */
export function recognizeDate(facts: ProblemFacts): SolvePlan | undefined {
  const dates = [...facts.text.matchAll(DATE)];
  const [first, second] = dates;
  if (!first) return undefined;
  if (second) return daysBetweenPlan(facts.lang, iso(first), iso(second));
  const span = facts.quantities.find((q) => q.unit?.symbol === 'day' || q.unit?.symbol === 'week');
  if (!span || !Number.isInteger(span.value)) return undefined;
  const days = span.value * (span.unit?.symbol === 'week' ? 7 : 1);
  return addDaysPlan(facts.lang, iso(first), BEFORE.test(facts.text) ? -days : days);
}
