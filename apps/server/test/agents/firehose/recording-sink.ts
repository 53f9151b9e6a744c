import type { Step, StepKind } from '@interthought/protocol';
import type { AgentRunContext, StepSink, StepWriter } from '../../../src/agents/agent.js';
import { ToolRegistry } from '../../../src/tools/tool-registry.js';

/** One call the agent made on the sink, in call order. */
export type SinkCall =
  | { call: 'start'; stepId: string; kind: StepKind }
  | { call: 'write'; stepId: string; text: string }
  | { call: 'end'; stepId: string };

/**
 * A sink that records every call in the order the agent made it. Like the session core, a write
 * resolves on a later turn (setImmediate pacing) and rejects once the run is aborted.
 */
export class RecordingSink implements StepSink {
  readonly calls: SinkCall[] = [];
  #nextId = 1;

  constructor(private readonly signal: AbortSignal) {}

  start(kind: StepKind): StepWriter {
    const stepId = `step-${this.#nextId++}`;
    this.calls.push({ call: 'start', stepId, kind });
    return {
      stepId,
      write: (text) => {
        this.calls.push({ call: 'write', stepId, text });
        return new Promise<void>((resolve, reject) => {
          setImmediate(() => (this.signal.aborted ? reject(this.signal.reason) : resolve()));
        });
      },
      end: () => {
        this.calls.push({ call: 'end', stepId });
      },
    };
  }

  notice(): void {}

  writes(): Extract<SinkCall, { call: 'write' }>[] {
    return this.calls.filter((call): call is Extract<SinkCall, { call: 'write' }> => call.call === 'write');
  }

  starts(): Extract<SinkCall, { call: 'start' }>[] {
    return this.calls.filter((call): call is Extract<SinkCall, { call: 'start' }> => call.call === 'start');
  }
}

/** A run context for `task` continuing `chain`, recording into a fresh sink. */
export function recordingRun(task: string, chain: Step[] = [], controller = new AbortController()) {
  const sink = new RecordingSink(controller.signal);
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
