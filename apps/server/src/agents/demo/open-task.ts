import { say, type Lang } from './language.js';
import type { AdvicePlan } from './plan.js';
import type { ProblemFacts } from './problem-facts.js';

type Category = 'travel' | 'writing' | 'explaining' | 'coding' | 'general';

const CATEGORY_CUES: ReadonlyArray<[Category, RegExp]> = [
  ['travel', /\b(?:trip|travel|visit|vacation|holiday|itinerary|tour|journey)\b|旅行|旅游|行程|出游|游玩|度假|攻略/iu],
  ['coding', /\b(?:code|function|program|script|bug|python|javascript|typescript|sql|regex|api)\b|代码|程序|函数|编程|脚本/iu],
  ['writing', /\b(?:write|poem|story|essay|letter|email|article|song|haiku|speech|blog)\b|写|诗|文章|故事|作文|信|歌词|演讲/iu],
  ['explaining', /\b(?:what is|what are|why|how does|how do|explain|describe|difference between)\b|什么是|为什么|怎么|如何|解释|介绍|是什么/iu],
];

const CLOSING_PUNCTUATION = new Set(['?', '？', '!', '！', '。', '.']);

/** The text without the punctuation that ends it, scanned from the end (a pattern anchored at `$` retries from every position). */
function withoutClosingPunctuation(text: string): string {
  let end = text.length;
  while (end > 0 && CLOSING_PUNCTUATION.has(text[end - 1] ?? '')) end--;
  return text.slice(0, end);
}

/** The subject of the task without a leading request: "Plan a trip to Kyoto" → "a trip to Kyoto". */
function topicOf(task: string, lang: Lang): string {
  const trimmed = withoutClosingPunctuation(task.trim());
  const topic =
    lang === 'zh'
      ? trimmed.replace(/^(?:请|请你|帮我|给我|能不能|可以|我想|我要)+/u, '').replace(/^(?:写|规划|计划|安排|解释|介绍)/u, '')
      : trimmed.replace(/^(?:please\s+|can you\s+|could you\s+|help me\s+|i want to\s+|i'd like to\s+)+/iu, '').replace(/^(?:plan|write|create|make|explain|describe|draft|design)\s+/iu, '');
  const short = topic.length > 60 ? `${topic.slice(0, 57)}…` : topic;
  return short.length > 0 ? short : trimmed;
}

/** A destination: "Kyoto" in "a trip to Kyoto", "京都" in "去京都旅行". */
function placeOf(task: string): string | undefined {
  return /\bto\s+([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)/u.exec(task)?.[1] ?? /去([\u4e00-\u9fff]{2,4}?)(?:旅行|旅游|玩|度假|的)/u.exec(task)?.[1];
}

function planSteps(category: Category, lang: Lang, topic: string, task: string): string[] {
  const place = placeOf(task) ?? topic;
  switch (category) {
    case 'travel':
      return lang === 'zh'
        ? [`确定去${place}的日期、预算和同行的人`, `列出${place}想去的景点，按区域分组`, '订好交通和住处，尽量住在这些区域附近', '排出每天的行程，留出吃饭和休息的时间']
        : [`Fix the dates, budget and who is going to ${place}`, `List the sights in ${place} and group them by area`, 'Book transport and a place to stay near those areas', 'Draft a day-by-day itinerary with time for meals and rest'];
    case 'writing':
      return lang === 'zh'
        ? [`确定“${topic}”的主题、读者和语气`, '收集要用到的意象、事实或要点', '写出初稿', '朗读一遍，删改到满意']
        : [`Settle the subject, reader and tone of ${topic}`, 'Collect the images, facts or points it needs', 'Write a first draft', 'Read it aloud and revise'];
    case 'coding':
      return lang === 'zh'
        ? [`明确“${topic}”的输入、输出和限制`, '先写出最简单能用的版本', '用几个例子测试它', '处理边界情况并整理代码']
        : [`Pin down the inputs, outputs and limits of ${topic}`, 'Write the smallest version that works', 'Test it on a few examples', 'Handle the edge cases and tidy up'];
    case 'explaining':
      return lang === 'zh'
        ? [`给出“${topic}”的定义`, '讲清它的主要原理或事实', '举一个具体的例子', '用一两句话总结']
        : [`Define the terms in "${topic}"`, 'Lay out the main facts or mechanism', 'Give one concrete example', 'Sum it up in two sentences'];
    case 'general':
      return lang === 'zh'
        ? [`弄清“${topic}”要达到什么结果`, '收集它依赖的信息和选项', '起草一个答案', '对照目标检查并改进']
        : [`Clarify what a good result for "${topic}" looks like`, 'Gather the facts and options it depends on', 'Draft an answer', 'Check it against the goal and refine it'];
  }
}

function numbered(steps: readonly string[], lang: Lang): string {
  return steps.map((step, i) => `${i + 1}. ${step}${lang === 'zh' ? '。' : '.'}`).join('\n');
}

/** How a plan on the chain reads in a final answer: its step count and its first step. */
function summarisePlan(lang: Lang, action: string): string {
  const lines = action.split('\n').map((line) => line.trim()).filter((line) => /^\d+[.)、]/u.test(line));
  const first = lines[0]?.replace(/^\d+[.)、]\s*/u, '').replace(/[.。]$/u, '');
  if (lines.length === 0 || !first) return '';
  return say(lang, `The plan above has ${lines.length} steps, starting with: ${first}. `, `上面的计划共${lines.length}步，第一步是：${first}。`);
}

const OFFLINE_NOTE: Readonly<Record<Lang, string>> = {
  en: 'For a real answer, start a session with the `openai` agent (it needs an OpenAI-compatible endpoint configured on the server). Offline, I can solve arithmetic, percentages, word problems and unit conversions, e.g. "What is 15% of 240?".',
  zh: '要得到真正的回答，请选择 `openai` 智能体（需要服务器配置兼容 OpenAI 的接口）。离线时我能解算术、百分数、应用题和单位换算，比如“240的15%是多少？”。',
};

/** Whether a text is plainly a task for a language model (a trip, a text to write, code), not a question about numbers. */
export function isOpenTask(text: string): boolean {
  const category = CATEGORY_CUES.find(([, cue]) => cue.test(text))?.[0];
  return category === 'travel' || category === 'writing' || category === 'coding';
}

/** A task without numbers: say honestly what this agent is, lay out a plan, point to the LLM agent. */
export function openTaskPlan(task: string, facts: ProblemFacts): AdvicePlan {
  const { lang } = facts;
  const category = CATEGORY_CUES.find(([, cue]) => cue.test(task))?.[0] ?? 'general';
  const topic = topicOf(task, lang);
  return {
    kind: 'advice',
    lang,
    thought: say(
      lang,
      `"${topic}" is not a calculation. I am the offline demo agent: there is no language model behind me, so I cannot research or write this for real. I can still lay out how I would approach it.`,
      `“${topic}”不是计算题。我是离线演示智能体，背后没有语言模型，没法真正查资料或写出内容，但可以列出我会怎么做。`,
    ),
    action: `${say(lang, 'Plan:', '计划：')}\n${numbered(planSteps(category, lang, topic, task), lang)}`,
    answer: (action) =>
      say(
        lang,
        `${summarisePlan(lang, action)}Carrying it out needs a language model. ${OFFLINE_NOTE.en}`,
        `${summarisePlan(lang, action)}要真正完成它需要语言模型。${OFFLINE_NOTE.zh}`,
      ),
  };
}
