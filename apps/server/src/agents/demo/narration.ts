import { showExpression } from './expression-finder.js';
import { say, type Lang } from './language.js';
import type { PlannedCall } from './plan.js';

/** What the agent is about to do with a tool, as the action step says it. */
export function announceCall(lang: Lang, call: PlannedCall, next = false): string {
  const lead = next ? say(lang, 'Next, ', '接下来，') : '';
  switch (call.tool) {
    case 'calculator':
      return lead + say(lang, `I'll compute ${showExpression(call.input.expression)} with the calculator.`, `用计算器计算 ${showExpression(call.input.expression)}。`);
    case 'unit_converter': {
      const { value, from, to } = call.input;
      return lead + say(lang, `I'll convert ${value} ${from} to ${to} with the unit converter.`, `用单位换算工具把 ${value} ${from} 换算成 ${to}。`);
    }
    case 'date_calculator': {
      const { start, end, days } = call.input;
      if (call.input.operation === 'days_between') {
        return lead + say(lang, `I'll count the days from ${start} to ${end ?? '?'} with the date calculator.`, `用日期计算工具数出${start}到${end ?? '?'}的天数。`);
      }
      return lead + say(lang, `I'll add ${days ?? 0} days to ${start} with the date calculator.`, `用日期计算工具算出${start}加上${days ?? 0}天的日期。`);
    }
  }
}

/** The tool names as people say them. */
function toolName(lang: Lang, tool: string): string {
  const names: Record<string, [string, string]> = {
    calculator: ['calculator', '计算器'],
    unit_converter: ['unit converter', '单位换算工具'],
    date_calculator: ['date calculator', '日期计算工具'],
  };
  const [en, zh] = names[tool] ?? [tool, tool];
  return say(lang, en, zh);
}

/** The final answer when the last tool call failed: report the error, do not invent a number. */
export function toolFailureAnswer(lang: Lang, tool: string, reported: string): string {
  const error = /[.!?。！？]$/u.test(reported) ? reported : `${reported}.`;
  return say(
    lang,
    `The ${toolName(lang, tool)} reported an error: ${error} I can't give a reliable answer without a valid result; edit the tool call's input and I will run it again.`,
    `${toolName(lang, tool)}报错：${error} 没有有效的结果，我给不出可靠的答案；修改工具调用的输入后我会重新运行。`,
  );
}

/**
 * The final answer after the user refused a tool call (or nobody approved it in time): say so,
 * give what the earlier calls found if anything, and how to go on. It never invents the result.
 */
export function refusedCallAnswer(lang: Lang, tool: string, refusal: { timedOut: boolean; reason?: string }, soFar?: string): string {
  const name = toolName(lang, tool);
  const why = refusal.reason === undefined || refusal.timedOut ? '' : say(lang, ` (your reason: "${refusal.reason}")`, `（你的理由：“${refusal.reason}”）`);
  const opening = refusal.timedOut
    ? say(lang, `The ${name} call was not approved in time, so I did not run it.`, `${name}调用没有在时限内得到批准，所以我没有运行它。`)
    : say(lang, `You declined the ${name} call${why}, so I did not run it.`, `你拒绝了这次${name}调用${why}，所以我没有运行它。`);
  const found = soFar === undefined ? '' : say(lang, ` The last result I had is ${soFar}.`, `我目前得到的结果是 ${soFar}。`);
  return (
    opening +
    say(lang, ' Without its result I cannot give a reliable answer.', '没有它的结果，我给不出可靠的答案。') +
    found +
    say(lang, ' To go on, correct the tool call (edit its input) and I will run that instead.', '如要继续，请修正这次工具调用（修改它的输入），我会改为运行修正后的调用。')
  );
}

/** The final answer when an observation holds no number the agent can read. */
export function unreadableObservationAnswer(lang: Lang, text: string): string {
  const shown = text.length > 80 ? `${text.slice(0, 77)}…` : text;
  return say(
    lang,
    `I could not read a number in the observation "${shown}", so I cannot finish the calculation. An observation such as "= 90" or "90" would let me continue.`,
    `我在观察结果“${shown}”里读不到数字，所以没法完成计算。像“= 90”或“90”这样的观察结果我就能接着算。`,
  );
}

/** Said in the action when a rewritten thought or plan holds nothing the agent can compute with. */
export function keptPlanRemark(lang: Lang, kind: 'thought' | 'action'): string {
  const what = kind === 'thought' ? say(lang, 'thought', '思考') : say(lang, 'plan', '计划');
  return say(
    lang,
    `The ${what} above names no new numbers or expression, so the calculation still follows the task. `,
    `上面的${what}里没有新的数字或算式，所以计算仍按题目来。`,
  );
}
