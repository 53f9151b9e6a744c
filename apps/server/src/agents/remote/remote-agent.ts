import type { PendingCall, Step } from '@interthought/protocol';
import type { Agent, AgentAvailability, AgentRunContext } from '@interthought/agent';
import { callInput, unansweredCallOf } from './pending-call.js';
import { runServerTool, writeObservation } from './server-tool.js';
import type { WorkerPool } from './worker-pool.js';

/**
 * An agent served by worker processes over `/ws/agents` (PROTOCOL.md Part II). To the session
 * core it is an agent like any other: a run is a `run.start` to the least busy worker, whose
 * frames become the run's `StepSink` calls.
 */
export class RemoteAgent implements Agent {
  readonly #pool: WorkerPool;

  constructor(
    readonly name: string,
    /** The description its newest registration gave. */
    public description: string,
    pool: WorkerPool,
    /** The agents file's `"lessons": true` for its `remote` entry (PROTOCOL.md §26.4); a name no entry declares learns nothing. */
    readonly lessons?: { readonly max: number },
  ) {
    this.#pool = pool;
  }

  availability(): AgentAvailability {
    return this.#pool.availability(this.name);
  }

  async run(context: AgentRunContext): Promise<void> {
    const { chain, call } = await this.#answerServerCall(context);
    const worker = this.#pool.pick(this.name);
    if (worker === undefined) {
      const serving = this.#pool.workersOf(this.name);
      throw new Error(
        serving === 0
          ? `No worker connected to this server serves agent "${this.name}" now: start one, then resume or correct to run again.`
          : `Every worker of agent "${this.name}" is busy with as many runs as it may take: try again shortly.`,
      );
    }
    await worker.startRun(context, {
      sessionId: context.sessionId ?? '',
      agent: this.name,
      task: context.task,
      chain,
      options: context.options,
      ...(context.lessons === undefined ? {} : { lessons: context.lessons }),
      ...(call === undefined ? {} : { call }),
    });
  }

  /**
   * A chain ending in an unanswered call of a server tool (approved, edited, corrected or left by
   * a lost worker) is answered here first, as in-process agents do; a call of the worker's own
   * tool goes to the worker as `run.start.call`.
   */
  async #answerServerCall(context: AgentRunContext): Promise<{ chain: readonly Step[]; call?: PendingCall }> {
    const unanswered = unansweredCallOf(context.chain);
    if (unanswered === undefined) return { chain: context.chain };
    const { step, tool, why } = unanswered;
    if (context.tools.get(tool) === undefined) return { chain: context.chain, call: { stepId: step.stepId, tool, input: callInput(step.content), why } };
    const check = context.tools.checkInput(tool, step.content);
    const observation = check.ok
      ? (await runServerTool(context, tool, check.input, context.chain)).observation
      : await writeObservation(context, context.chain, tool, `Error: ${check.message}`, { error: check.message, details: check.details });
    return { chain: [...context.chain, observation] };
  }
}
