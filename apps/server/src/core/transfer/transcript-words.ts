import type { Attribution } from '@interthought/protocol';

/** The languages a transcript's own words come in (`?lang=`, PROTOCOL.md §20.5). */
export const TRANSCRIPT_LANGUAGES = ['en', 'zh'] as const;
export type TranscriptLanguage = (typeof TRANSCRIPT_LANGUAGES)[number];

/** What the server adds to a transcript, in one language. Agent and user text is never translated. */
export interface TranscriptWords {
  locale: string;
  kinds: Readonly<Record<string, string>>;
  statuses: Readonly<Record<string, string>>;
  step(number: string, kind: string): string;
  who(attribution: Attribution): string;
  /** The speaker of a user's turn, at the start of a line. */
  speaker(attribution: Attribution): string;
  turn(speaker: string): string;
  byAt(who: string | undefined, when: string | undefined): string;
  corrected(byAt: string, note: string | undefined): string;
  earlier: string;
  empty: string;
  emptyStep: string;
  streaming: string;
  waiting(since: string | undefined): string;
  approved(byAt: string): string;
  edited(byAt: string): string;
  rejected(byAt: string, reason: string | undefined): string;
  timedOut(when: string | undefined): string;
  otherDecision(state: string, byAt: string): string;
  refused(why: 'timeout' | { who: string; reason: string | undefined }): string;
  header(parts: { sessionId: string; agent: string; model: string | undefined; started: string; fork: { sessionId: string; step: string | undefined } | undefined; zone: string }): string;
  queued: string;
  status(status: string, error: string | undefined, detail: string | undefined): string;
}

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

const en: TranscriptWords = {
  locale: 'en-US',
  kinds: { thought: 'Thought', action: 'Action', tool_call: 'Tool call', observation: 'Observation', final_answer: 'Answer' },
  statuses: {},
  step: (number, kind) => `Step ${number} · ${kind}`,
  who(attribution) {
    switch (attribution.kind) {
      case 'you':
        return 'you';
      case 'user':
        return attribution.name;
      case 'share-link':
        return 'someone with a share link';
      case 'owner':
        return 'the owner';
      case 'decider':
        return attribution.decider === 'server' ? 'the server' : attribution.decider === 'policy' ? 'a rule of the session' : 'someone';
      default:
        return 'someone';
    }
  },
  speaker: (attribution) => capitalised(en.who(attribution)),
  turn: (speaker) => `**${speaker}:**`,
  byAt: (who, when) => `${who === undefined ? '' : ` by ${who}`}${when === undefined ? '' : ` at ${when}`}`,
  corrected: (byAt, note) => `**Corrected**${byAt}.${note === undefined ? '' : ` Note: “${note}”`}`,
  earlier: 'The earlier text:',
  empty: '(empty)',
  emptyStep: '_(empty)_',
  streaming: '_(still being written)_',
  waiting: (since) => `**Waiting for approval**${since === undefined ? '' : ` since ${since}`}: the tool has not run.`,
  approved: (byAt) => `**Approved**${byAt}.`,
  edited: (byAt) => `**Edited before it ran** and approved${byAt}.`,
  rejected: (byAt, reason) => `**Rejected**${byAt}.${reason === undefined ? '' : ` Reason: “${reason}”`}`,
  timedOut: (when) => `**Not approved in time**: timed out${when === undefined ? '' : ` at ${when}`}; the tool did not run.`,
  otherDecision: (state, byAt) => `**Approval**: ${state}${byAt}.`,
  refused: (why) =>
    `**Refused**: the tool did not run, because ${why === 'timeout' ? 'no decision was made in time' : `it was rejected by ${why.who}${why.reason === undefined ? '' : ` (“${why.reason}”)`}`}.`,
  header: ({ sessionId, agent, model, started, fork, zone }) =>
    `_Session ${sessionId} · agent ${agent}${model === undefined ? '' : ` · model ${model}`} · started ${started}${
      fork === undefined ? '' : ` · forked from session ${fork.sessionId}${fork.step === undefined ? '' : ` at step ${fork.step}`}`
    } · times in ${zone}_`,
  queued: '**Waiting to reach the chain:**',
  status: (status, error, detail) => `**Status:** ${status}${error === undefined ? '' : ` — ${error}`}${detail === undefined ? '' : ` (${detail})`}`,
};

const zh: TranscriptWords = {
  locale: 'zh-CN',
  kinds: { thought: '思考', action: '行动', tool_call: '工具调用', observation: '观察', final_answer: '回答' },
  statuses: {
    running: '运行中',
    waiting: '等待中',
    paused: '已暂停',
    idle: '空闲',
    completed: '已完成',
    failed: '失败',
    cancelled: '已取消',
    interrupted: '已中断',
  },
  step: (number, kind) => `第 ${number} 步 · ${kind}`,
  who(attribution) {
    switch (attribution.kind) {
      case 'you':
        return '你';
      case 'user':
        return attribution.name;
      case 'share-link':
        return '持分享链接的人';
      case 'owner':
        return '所有者';
      case 'decider':
        return attribution.decider === 'server' ? '服务器' : attribution.decider === 'policy' ? '会话的规则' : '某人';
      default:
        return '某人';
    }
  },
  speaker: (attribution) => zh.who(attribution),
  turn: (speaker) => `**${speaker}：**`,
  byAt: (who, when) => `${who === undefined ? '' : `由${who}`}${when === undefined ? '' : `于 ${when}`}`,
  corrected: (byAt, note) => `**已修正**${byAt === '' ? '' : `：${byAt}`}。${note === undefined ? '' : `说明：“${note}”`}`,
  earlier: '修正前的内容：',
  empty: '（空）',
  emptyStep: '_（空）_',
  streaming: '_（仍在写入）_',
  waiting: (since) => `**等待批准**${since === undefined ? '' : `（自 ${since} 起）`}：工具尚未运行。`,
  approved: (byAt) => `**已批准**${byAt === '' ? '' : `：${byAt}`}。`,
  edited: (byAt) => `**运行前已修改**并批准${byAt === '' ? '' : `：${byAt}`}。`,
  rejected: (byAt, reason) => `**已拒绝**${byAt === '' ? '' : `：${byAt}`}。${reason === undefined ? '' : `原因：“${reason}”`}`,
  timedOut: (when) => `**未及时批准**：${when === undefined ? '' : `于 ${when} `}超时，工具没有运行。`,
  otherDecision: (state, byAt) => `**审批**：${state}${byAt === '' ? '' : `，${byAt}`}。`,
  refused: (why) =>
    `**已拒绝执行**：工具没有运行，因为${why === 'timeout' ? '没有人及时决定' : `${why.who}拒绝了它${why.reason === undefined ? '' : `（“${why.reason}”）`}`}。`,
  header: ({ sessionId, agent, model, started, fork, zone }) =>
    `_会话 ${sessionId} · 智能体 ${agent}${model === undefined ? '' : ` · 模型 ${model}`} · 开始于 ${started}${
      fork === undefined ? '' : ` · 分叉自会话 ${fork.sessionId}${fork.step === undefined ? '' : ` 的第 ${fork.step} 步`}`
    } · 时间为 ${zone}_`,
  queued: '**等待进入链的消息：**',
  status: (status, error, detail) => `**状态：** ${zh.statuses[status] ?? status}${error === undefined ? '' : ` — ${error}`}${detail === undefined ? '' : `（${detail}）`}`,
};

/** The words of a transcript in `language`. */
export const TRANSCRIPT_WORDS: Readonly<Record<TranscriptLanguage, TranscriptWords>> = { en, zh };
