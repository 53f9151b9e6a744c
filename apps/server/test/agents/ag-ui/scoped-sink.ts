import type { StepSink, SubagentSink } from '@interthought/agent';
import { RecordingSink } from '../../support/recording-sink.js';

/** What a sub-agent's scope was opened with and how it ended. */
export interface OpenedScope {
  callStepId: string;
  name: string;
  agent: string;
  task: string;
  sink: ScopedRecordingSink;
  outcome?: { status: 'completed' | 'failed' | 'cancelled'; error?: string };
}

/**
 * A recording sink that opens sub-agent scopes as the agent contract describes (`openSubagent`):
 * the call must be a tool call of this sink that has ended; steps of the scope are recorded in its
 * own sink (whose step ids count from 1 again).
 */
export class ScopedRecordingSink extends RecordingSink implements StepSink {
  readonly opened: OpenedScope[] = [];

  constructor(readonly scope?: string) {
    super({ pacing: 'next-turn' });
  }

  openSubagent(call: { callStepId: string; name: string; agent: string; task: string }): SubagentSink {
    const step = this.steps.find((candidate) => candidate.stepId === call.callStepId);
    if (step === undefined || step.kind !== 'tool_call' || !step.ended) throw new Error(`Step ${call.callStepId} is not a completed tool call of this chain.`);
    const child = new ScopedRecordingSink(call.callStepId);
    const opened: OpenedScope = { ...call, sink: child };
    this.opened.push(opened);
    return Object.assign(child, {
      scope: call.callStepId,
      finish: (outcome: OpenedScope['outcome'] & object) => {
        if (opened.outcome !== undefined) throw new Error(`Scope ${call.callStepId} finished twice.`);
        opened.outcome = outcome;
      },
    });
  }
}
