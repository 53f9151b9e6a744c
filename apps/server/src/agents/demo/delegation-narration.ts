import { say, type Lang } from './language.js';

/** One part of a delegated task as the final answer reports it: its label, its task and what its sub-agent answered. */
export interface PartOutcome {
  name: string;
  task: string;
  /** The delegate call's observation on the chain (the sub-agent's answer, or why there is none). */
  answer: string;
}

/** The label of part `index` (0-based), in the task's language: "part 1", "第 1 部分". */
export function partName(lang: Lang, index: number): string {
  return say(lang, `part ${index + 1}`, `第 ${index + 1} 部分`);
}

/** The thought before a batch: why the task is split, then the parts as a numbered list (a user may edit that list). */
export function splitThought(lang: Lang, parts: readonly string[]): string {
  const list = parts.map((part, i) => `${i + 1}. ${part}`).join('\n');
  return say(
    lang,
    parts.length === 1
      ? `I'll hand this part to a sub-agent of its own:\n${list}`
      : `This task has ${parts.length} independent parts, so I'll hand each to a sub-agent of its own and run them at the same time:\n${list}`,
    parts.length === 1 ? `我把这个部分交给一个子智能体：\n${list}` : `这道题有 ${parts.length} 个互不相关的部分，我把每个部分交给各自的子智能体，同时运行：\n${list}`,
  );
}

const NUMBERED_LINE = /^\s*\d+\s*[.)、．]\s*(\S.*)$/u;

/** The parts a (corrected) split thought lists, one per numbered line; empty when it lists none. */
export function listedParts(thought: string): string[] {
  return thought.split('\n').flatMap((line) => {
    const part = NUMBERED_LINE.exec(line)?.[1]?.trim();
    return part ? [part] : [];
  });
}

/** The final answer: each part's answer, in order, in the task's language; answered by sub-agents, or by the agent part after part. */
export function joinedAnswer(lang: Lang, parts: readonly PartOutcome[], by: 'subagents' | 'sequential' = 'subagents'): string {
  const lines = parts.map((part) => {
    const answer = part.answer.trim() || say(lang, '(no answer)', '（没有答案）');
    return say(lang, `- ${part.name} (${part.task}): ${answer}`, `- ${part.name}（${part.task}）：${answer}`);
  });
  const head =
    by === 'sequential'
      ? say(lang, `The task had ${parts.length} parts:`, `这道题有 ${parts.length} 个部分：`)
      : say(
          lang,
          parts.length === 1 ? 'A sub-agent answered the task:' : `The task had ${parts.length} parts, each answered by its own sub-agent:`,
          parts.length === 1 ? '子智能体的解答：' : `这道题有 ${parts.length} 个部分，分别由各自的子智能体解答：`,
        );
  return [head, ...lines].join('\n');
}
