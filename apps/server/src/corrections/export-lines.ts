import type { AssistantMessage, CorrectionExportFormat, CorrectionLineMetadata, CorrectionRecord, PreferenceLine, SessionState, SftLine } from '@interthought/protocol';
import { assistantMessageOf, contextMessages } from './chat-messages.js';

/** What a line says of its correction besides the messages (`metadata`, §26.3). */
function metadataOf(record: CorrectionRecord): CorrectionLineMetadata {
  const { sessionId, stepId, correctedStepId, kind, tool, scope, correction, note, by, at, agent, model } = record;
  return {
    sessionId,
    stepId,
    correctedStepId,
    kind,
    ...(tool === undefined ? {} : { tool }),
    ...(scope === undefined ? {} : { scope }),
    correction,
    ...(note === undefined ? {} : { note }),
    by,
    at,
    agent,
    ...(model === undefined ? {} : { model }),
  };
}

/**
 * The preferred turn: the correction in the original's shape, or, for a refused call, the reason
 * as the assistant's text (the preferred turn does not make the call). Undefined when there is
 * nothing to prefer: a refusal without a reason.
 */
function chosenOf(record: CorrectionRecord, original: CorrectionRecord['kind']): AssistantMessage | undefined {
  if (record.correction === 'rejected') return record.after === '' ? undefined : { role: 'assistant', content: record.after };
  return assistantMessageOf({ stepId: record.correctedStepId, kind: original, content: record.after, tool: record.tool });
}

/**
 * The export line of one correction in `format`, from its session's state; undefined when it has
 * none: a refusal without a reason, or a corrected observation (a tool's result is not a turn of the
 * model, so no assistant message can be preferred to it), or a step the state no longer holds.
 */
export function exportLineOf(record: CorrectionRecord, state: SessionState, format: CorrectionExportFormat): PreferenceLine | SftLine | undefined {
  const step = state.steps.get(record.stepId);
  if (step === undefined || step.kind === 'observation' || step.kind === 'user_message') return undefined;
  const chosen = chosenOf(record, step.kind);
  if (chosen === undefined) return undefined;
  const prompt = contextMessages(state, step);
  const metadata = metadataOf(record);
  if (format === 'sft') return { messages: [...prompt, chosen], metadata };
  const rejected = assistantMessageOf({ stepId: step.stepId, kind: step.kind, content: record.before, tool: step.tool ?? record.tool });
  return { prompt, chosen: [chosen], rejected: [rejected], metadata };
}
