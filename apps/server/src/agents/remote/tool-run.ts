import { DELEGATE_TOOL, type ToolRun } from '@interthought/protocol';
import type { RemoteRun } from './remote-run.js';
import { runServerTool } from './server-tool.js';
import { WorkerFrameError } from './worker-frame-error.js';

/**
 * `tool.run` (PROTOCOL.md Part II §A6.2): the server writes the `tool_call` step, and when the
 * policy lets it run at once, runs the tool, writes the `observation` and answers `tool.result`.
 * A call that waits for approval, or that a rule denies, aborts the run, as any agent's would.
 */
export async function applyToolRun(run: RemoteRun, frame: ToolRun): Promise<void> {
  const { context } = run;
  if (context.tools.get(frame.tool) === undefined) {
    throw new WorkerFrameError('TOOL_NOT_FOUND', `The server has no tool "${frame.tool}" (GET /api/tools lists them); a tool of the worker's own is a tool_call step it writes.`);
  }
  const input = JSON.stringify(frame.input ?? {});
  const check = context.tools.checkInput(frame.tool, input);
  if (!check.ok) throw new WorkerFrameError('BAD_TOOL_INPUT', `The input does not fit tool "${frame.tool}": ${check.message}`, check.details);
  // A delegate call joins the run's batch: its sub-agent runs beside the others (PROTOCOL.md §24.1).
  if (frame.tool === DELEGATE_TOOL) return run.delegateBatch().add(frame, check.input, input);
  const call = run.startStep(`\u0000tool.run:${frame.id}:${Date.now()}`, 'tool_call', frame.tool);
  await call.writer.write(input);
  call.ended = true;
  run.closeOpenStep();
  call.writer.end();
  if (run.aborted) {
    // Waiting for approval, or refused by a rule of the session (PROTOCOL.md §25.6): either way the tool never runs here.
    throw new WorkerFrameError('RUN_ABORTED', 'The tool call waits for approval or a rule of the session refused it: the tool did not run; a new run.start will carry the outcome.');
  }
  const outcome = await runServerTool(context, frame.tool, check.input, context.chain);
  run.send({
    type: 'tool.result',
    requestId: frame.id,
    runId: run.runId,
    tool: frame.tool,
    ok: outcome.ok,
    ...(outcome.ok ? { output: outcome.output } : { error: outcome.error ?? 'The tool failed.' }),
    text: outcome.text,
    callStepId: call.writer.stepId,
    observationStepId: outcome.observation.stepId,
  });
}
