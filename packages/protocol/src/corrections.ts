import { z } from 'zod';
import { IdSchema, TimestampSchema } from './common.js';
import { StepKindSchema } from './step-kind.js';

/**
 * Corrections as data (PROTOCOL.md §26): the index's records, the list's page, the export's lines
 * and the lessons an agent is given. Server → client shapes, tolerant of unknown fields.
 */

/** Which act made a correction (§26.1): an edit, an edit of a call waiting for approval, or a refusal. */
export const CorrectionActSchema = z.enum(['edited', 'approval_edited', 'rejected']);

/** One correction as `GET /api/corrections` lists it (§26.2). */
export const CorrectionRecordSchema = z.looseObject({
  sessionId: IdSchema,
  /** The step that was corrected. */
  stepId: IdSchema,
  /** The step that replaced it (for a refusal, the refusal's observation). */
  correctedStepId: IdSchema,
  index: z.number().int().min(0),
  kind: StepKindSchema,
  tool: z.string().optional(),
  scope: IdSchema.optional(),
  correction: CorrectionActSchema,
  before: z.string(),
  /** What replaced it; for a refusal, the reason ("" when none was given). */
  after: z.string(),
  note: z.string().optional(),
  by: z.string(),
  byName: z.string().optional(),
  at: TimestampSchema,
  task: z.string(),
  agent: z.string(),
  model: z.string().optional(),
});

/** `GET /api/corrections`: a page, newest first. */
export const CorrectionPageSchema = z.looseObject({
  corrections: z.array(CorrectionRecordSchema),
  nextCursor: z.string().optional(),
});

/** The list's and the export's filters, as query parameters (all optional, combined with AND). */
export const CorrectionFilterSchema = z.strictObject({
  agent: z.string().min(1).max(64).optional(),
  model: z.string().min(1).max(200).optional(),
  kind: StepKindSchema.optional(),
  tool: z.string().min(1).max(200).optional(),
  user: z.string().min(1).max(200).optional(),
  session: IdSchema.optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
});

/** The two export formats of `GET /api/corrections/export` (§26.3). */
export const CorrectionExportFormatSchema = z.enum(['preference', 'sft']);

/** A tool call inside an assistant chat message (OpenAI's shape, which TRL reads). */
export const ChatToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

/** An assistant turn: text, or a tool call with `content: ""`. */
export const AssistantMessageSchema = z.looseObject({
  role: z.literal('assistant'),
  content: z.string(),
  tool_calls: z.array(ChatToolCallSchema).optional(),
});

/** One chat message of an export line (§26.3, its paragraph on messages). */
export const ChatMessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: z.string() }),
  z.looseObject({ role: z.literal('user'), content: z.string() }),
  AssistantMessageSchema,
  z.looseObject({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }),
]);

/** The `metadata` of an export line. */
export const CorrectionLineMetadataSchema = z.looseObject({
  sessionId: IdSchema,
  stepId: IdSchema,
  correctedStepId: IdSchema,
  kind: StepKindSchema,
  tool: z.string().optional(),
  correction: CorrectionActSchema,
  note: z.string().optional(),
  by: z.string(),
  at: TimestampSchema,
  agent: z.string(),
  model: z.string().optional(),
});

/** A `format=preference` line: the conversational prompt / chosen / rejected format of DPO trainers. */
export const PreferenceLineSchema = z.looseObject({
  prompt: z.array(ChatMessageSchema).min(1),
  chosen: z.array(AssistantMessageSchema).length(1),
  rejected: z.array(AssistantMessageSchema).length(1),
  metadata: CorrectionLineMetadataSchema,
});

/** A `format=sft` line: the context, then the corrected step. */
export const SftLineSchema = z.looseObject({
  messages: z.array(ChatMessageSchema).min(2),
  metadata: CorrectionLineMetadataSchema,
});

/** Where a lesson came from: one correction of the index (§26.4). */
export const LessonSourceSchema = z.looseObject({
  sessionId: IdSchema,
  stepId: IdSchema,
  correctedStepId: IdSchema,
});

/** Bounds of lessons (§26.4). */
export const LESSONS_LIMITS = {
  /** Lessons a run is given when the catalogue names no `lessonsMax`. */
  defaultMax: 3,
  /** The largest `lessonsMax`. */
  maxCount: 10,
  /** The guidance text's length at most, in characters. */
  maxChars: 4_000,
  /** A task matches an earlier one when their words' Jaccard index reaches this. */
  minTaskSimilarity: 0.2,
  /** What a person corrects the lessons step to, to drop it: no agent is given that text. */
  dropped: '(no lessons)',
} as const;

export type CorrectionAct = z.infer<typeof CorrectionActSchema>;
export type CorrectionRecord = z.infer<typeof CorrectionRecordSchema>;
export type CorrectionPage = z.infer<typeof CorrectionPageSchema>;
export type CorrectionFilter = z.infer<typeof CorrectionFilterSchema>;
export type CorrectionExportFormat = z.infer<typeof CorrectionExportFormatSchema>;
export type ChatToolCall = z.infer<typeof ChatToolCallSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
export type CorrectionLineMetadata = z.infer<typeof CorrectionLineMetadataSchema>;
export type PreferenceLine = z.infer<typeof PreferenceLineSchema>;
export type SftLine = z.infer<typeof SftLineSchema>;
export type LessonSource = z.infer<typeof LessonSourceSchema>;
