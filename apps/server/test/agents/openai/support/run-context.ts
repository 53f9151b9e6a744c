import type { SessionOptions, Step, StepKind } from '@interthought/protocol';
import type { AgentRunContext } from '@interthought/agent';
import type { ToolRegistry } from '../../../../src/tools/tool-registry.js';
import { RecordingSink } from '../../../support/recording-sink.js';
import { createTestTools, type ToolInvocation } from './test-tools.js';

export interface TestRun {
  context: AgentRunContext;
  sink: RecordingSink;
  controller: AbortController;
  invocations: ToolInvocation[];
}

/** A run context with a recording sink, the test tools and an abort controller of its own. */
export function testRun(input: { task?: string; chain?: Step[]; options?: SessionOptions; tools?: ToolRegistry } = {}): TestRun {
  const controller = new AbortController();
  const sink = new RecordingSink({ signal: controller.signal, strictSequential: true });
  const testTools = createTestTools();
  const context: AgentRunContext = {
    task: input.task ?? 'What is 2 + 3?',
    chain: input.chain ?? [],
    options: input.options ?? {},
    tools: input.tools ?? testTools.tools,
    sink,
    signal: controller.signal,
  };
  return { context, sink, controller, invocations: testTools.invocations };
}

/** Environment variables for an agent that talks to `baseURL` quickly (short retry waits and timeout). */
export function testEnv(baseURL: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    OPENAI_BASE_URL: baseURL,
    INTERTHOUGHT_MODEL: 'test-model',
    INTERTHOUGHT_OPENAI_RETRY_BASE_MS: '5',
    INTERTHOUGHT_OPENAI_TIMEOUT_MS: '5000',
    ...extra,
  };
}

/** Builds chains of completed steps (and corrected ones) as the session core hands them to agents. */
export class ChainBuilder {
  readonly steps: Step[] = [];

  add(kind: StepKind, content: string, extra: { tool?: string; result?: unknown } = {}): this {
    const parent = this.steps.at(-1);
    this.steps.push({
      stepId: `c${this.steps.length + 1}`,
      parentId: parent?.stepId ?? null,
      index: this.steps.length,
      kind,
      status: 'completed',
      content,
      revision: 0,
      ...extra,
    });
    return this;
  }

  /** Add a step that a user's correction put in place of an earlier one. */
  corrected(kind: StepKind, content: string, previousContent: string, note?: string, extra: { tool?: string } = {}): this {
    const parent = this.steps.at(-1);
    this.steps.push({
      stepId: `c${this.steps.length + 1}`,
      parentId: parent?.stepId ?? null,
      index: this.steps.length,
      kind,
      status: 'corrected',
      content,
      revision: 1,
      correctionOf: `old${this.steps.length + 1}`,
      correction: { previousContent, at: new Date(0).toISOString(), ...(note === undefined ? {} : { note }) },
      ...extra,
    });
    return this;
  }
}
