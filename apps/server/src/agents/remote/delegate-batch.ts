import { DELEGATE_TOOL, type ToolRun } from '@interthought/protocol';
import type { StepWriter } from '@interthought/agent';
import { ToolError } from '../../tools/tool.js';
import type { RemoteRun } from './remote-run.js';
import { writeObservation } from './server-tool.js';

type Outcome = { ok: boolean; output?: unknown; error?: string; text: string };

/** One delegate call of a batch: its `tool.run`, the call's step (once written), and its sub-agent's outcome once it ends. */
interface Member {
  frame: ToolRun;
  call?: StepWriter;
  outcome: Promise<Outcome>;
}

/**
 * A worker's `tool.run`s of `delegate` one after another are one batch (PROTOCOL.md §24.1, Part II
 * §A6.2): each writes its call and starts its sub-agent at once (its scope is that call), without
 * holding up the run's next frame, so a batch's sub-agents run at the same time. Once every one has
 * ended — and no further delegate call joined meanwhile — their observations follow the batch in
 * call order and each `tool.result` answers. Any other frame of the run waits for the batch first:
 * the parent writes nothing while its batch runs.
 */
export class DelegateBatch {
  readonly #members: Member[] = [];
  /** Set once the batch stops taking calls: its observations are being written. */
  #closing = false;
  #settling: Promise<void> | undefined;

  constructor(private readonly run: RemoteRun) {}

  /** Whether it takes no more calls (a delegate call now starts the next batch, after this one). */
  get closed(): boolean {
    return this.#closing;
  }

  /** Settles when the batch is written out (rejects when its run failed or was aborted). */
  get done(): Promise<void> {
    return this.#settling ?? Promise.resolve();
  }

  /** Write the call of `frame` and start its sub-agent (a member at once, so the batch waits for it). */
  async add(frame: ToolRun, input: unknown, inputText: string): Promise<void> {
    let settle!: (outcome: Promise<Outcome>) => void;
    const member: Member = { frame, outcome: new Promise<Outcome>((resolve) => (settle = resolve)) };
    this.#members.push(member);
    this.#settling ??= this.#settle();
    try {
      const { call, outcome } = await this.#start(frame, input, inputText);
      member.call = call;
      settle(outcome);
    } catch (error) {
      settle(Promise.reject(error));
      throw error;
    }
  }

  async #start(frame: ToolRun, input: unknown, inputText: string): Promise<{ call: StepWriter; outcome: Promise<Outcome> }> {
    const { run } = this;
    const step = run.startStep(`\u0000tool.run:${frame.id}:${Date.now()}`, 'tool_call', DELEGATE_TOOL);
    await step.writer.write(inputText);
    step.ended = true;
    run.closeOpenStep();
    step.writer.end();
    const tool = run.context.tools.get(DELEGATE_TOOL)!;
    const outcome = tool.execute(input, run.context.signal, { stepId: step.writer.stepId }).then(
      (result) => ({ ok: true, output: result.output, text: result.text }),
      (error: unknown) => {
        if (run.context.signal.aborted || !(error instanceof ToolError)) throw error;
        const output = (error as ToolError & { output?: unknown }).output;
        return { ok: false, output: output ?? { error: error.message }, error: error.message, text: `Error: ${error.message}` };
      },
    );
    return { call: step.writer, outcome };
  }

  async #settle(): Promise<void> {
    let count: number;
    do {
      count = this.#members.length;
      await Promise.all(this.#members.map((member) => member.outcome));
    } while (this.#members.length !== count);
    this.#closing = true;
    await this.#writeOut();
  }

  async #writeOut(): Promise<void> {
    const { run } = this;
    for (const member of this.#members) {
      const outcome = await member.outcome;
      const observation = await writeObservation(run.context, run.context.chain, DELEGATE_TOOL, outcome.text, outcome.output);
      run.send({
        type: 'tool.result',
        requestId: member.frame.id,
        runId: run.runId,
        tool: DELEGATE_TOOL,
        ok: outcome.ok,
        ...(outcome.ok ? { output: outcome.output } : { error: outcome.error ?? 'The sub-agent failed.' }),
        text: outcome.text,
        callStepId: member.call!.stepId,
        observationStepId: observation.stepId,
      });
    }
  }
}
