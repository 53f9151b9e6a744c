import type { Message, PluralMessage } from './messages.js';

/*
 * The labels of a lessons step (PROTOCOL.md §26.4, issue #31): the notice a run that learns from
 * earlier corrections begins with. Kept apart; `messages.ts` spreads them into its tables.
 */

export const lessonsEn = {
  'lessons.using': { one: 'Using {count} lesson from earlier corrections', other: 'Using {count} lessons from earlier corrections' },
  'lessons.dropped': 'Lessons dropped: the agent works without the earlier corrections',
  'lessons.edited': 'Lessons corrected: the agent follows your text',
  'lessons.sources': 'Where they come from',
  'lessons.source': 'Lesson {n}: the corrected step',
  'lessons.sourceLabel': 'Open lesson {n}: the corrected step in its session',
  'lessons.guidance': 'What the agent is given',
  'lessons.drop': 'Drop lessons',
  'lessons.dropLabel': 'Drop the lessons of step {n}: the agent runs again without them',
  'lessons.dropping': 'Dropping…',
} satisfies Record<string, Message>;

type Table = { [K in keyof typeof lessonsEn]: (typeof lessonsEn)[K] extends string ? string : PluralMessage };

export const lessonsZh: Table = {
  'lessons.using': { other: '借鉴了此前纠正中的 {count} 条经验' },
  'lessons.dropped': '已舍弃经验：智能体不再参考此前的纠正',
  'lessons.edited': '经验已修正：智能体按你的文字执行',
  'lessons.sources': '经验来源',
  'lessons.source': '经验 {n}：被纠正的步骤',
  'lessons.sourceLabel': '打开经验 {n}：它所在会话中被纠正的步骤',
  'lessons.guidance': '智能体得到的内容',
  'lessons.drop': '舍弃经验',
  'lessons.dropLabel': '舍弃第 {n} 步的经验：智能体将不带它们重新运行',
  'lessons.dropping': '正在舍弃…',
};
