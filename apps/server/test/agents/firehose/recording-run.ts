import type { Step, StepKind } from '@interthought/protocol';
import type { AgentRunContext } from '@interthought/agent';
import { ToolRegistry } from '../../../src/tools/tool-registry.js';
import { RecordingSink } from '../../support/recording-sink.js';

/** A run context for `task` continuing `chain`, recording into a fresh sink paced like the core. */
export function recordingRun(task: string, chain: Step[] = [], controller = new AbortController()) {
  const sink = new RecordingSink({ signal: controller.signal, pacing: 'next-turn' });
  const context: AgentRunContext = {
    task,
    chain,
    options: { tokenDelayMs: 0 },
    tools: new ToolRegistry(),
    sink,
    signal: controller.signal,
  };
  return { sink, context, controller };
}

/** A chain step as the session core would pass it. */
export function chainStep(stepId: string, kind: StepKind, index: number, status: Step['status'] = 'completed'): Step {
  return { stepId, parentId: index === 0 ? null : `s${index - 1}`, index, kind, status, content: 'earlier', revision: 0 };
}
