import type { OpenAI } from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { ASK_USER_TOOL, DELEGATE_TOOL } from '@interthought/protocol';
import { checkToolInput, type AgentRunContext } from '@interthought/agent';
import { askUserTool } from '../../tools/ask-user.js';
import { streamStep } from '../stream-text.js';
import { observeTool } from '../tool-steps.js';
import { ChainRecorder, type ChainStep } from './chain-recorder.js';
import { callGroups, runDelegateBatch } from './delegate-batch.js';
import { streamChatCompletion } from './chat-stream.js';
import { OPENAI_DEFAULT_BASE_URL, type OpenAIConfig } from './config.js';
import { buildMessages, unansweredToolCalls } from './history.js';
import { ModelCallMeter } from './model-call-meter.js';
import { toolDefinitions } from './tool-definitions.js';
import { TurnStreamer, type TurnOutcome } from './turn-streamer.js';
import { traceChatCompletion } from '../../tracing/chat-completion-span.js';

/**
 * One run of the `openai` agent: continue the chain until the model gives its final answer.
 * Each model turn is asked with the whole chain as history (corrections in place), so a
 * regeneration after a correction builds on the corrected content for real.
 */
export async function runAgentLoop(client: OpenAI, config: OpenAIConfig, context: AgentRunContext, subagents: readonly string[] = []): Promise<void> {
  const chain: ChainStep[] = context.chain.map((step) => ({ ...step }));
  const recorder = new ChainRecorder(context.sink, chain);
  const run: AgentRunContext = { ...context, sink: recorder };
  // The user corrected the final answer itself: that answer stands.
  if (chain.at(-1)?.kind === 'final_answer') return;
  // A chain that ends in a (corrected) tool call gets its result before the model is asked again.
  if ((await answerToolCalls(run, chain)) === 'asked') return;
  const tools = toolDefinitions(context.tools, subagents);
  for (let turn = 1; turn <= config.maxIterations; turn++) {
    const body: ChatCompletionCreateParamsStreaming = {
      model: context.options.model ?? config.model,
      messages: buildMessages(context.task, chain, config.thoughtReplay, config.system, context.lessons),
      stream: true,
      // The last chunk then reports the call's tokens (PROTOCOL.md §22 "Usage and cost").
      stream_options: { include_usage: true },
    };
    if (tools.length) body.tools = tools;
    if (context.options.temperature !== undefined) body.temperature = context.options.temperature;
    const outcome = await modelTurn(client, config, context, recorder, body);
    if (outcome.answered) return;
    if ((await answerToolCalls(run, chain)) === 'asked') return;
  }
  throw new Error(`stopped after ${config.maxIterations} model turns without a final answer`);
}

/**
 * One model call: its chunks streamed onto steps, then its usage recorded once for the steps it
 * produced, whether the turn could use the answer or not (the tokens were spent either way).
 */
async function modelTurn(
  client: OpenAI,
  config: OpenAIConfig,
  context: AgentRunContext,
  recorder: ChainRecorder,
  body: ChatCompletionCreateParamsStreaming,
): Promise<TurnOutcome> {
  const meter = new ModelCallMeter(body.model);
  const stepsBefore = recorder.chain.length;
  const streamer = new TurnStreamer(recorder);
  const chunks = streamChatCompletion(client, body, {
    signal: context.signal,
    sink: recorder,
    retry: config.retry,
    facts: { baseURL: config.baseURL ?? OPENAI_DEFAULT_BASE_URL, timeoutMs: config.timeoutMs, attempts: config.retry.attempts },
    onAttempt: () => meter.sent(),
  });
  // The call's `chat <model>` span; with tracing off the chunks pass untouched.
  const traced = traceChatCompletion({ body, baseURL: config.baseURL ?? OPENAI_DEFAULT_BASE_URL, signal: context.signal }, chunks);
  try {
    for await (const chunk of traced) {
      meter.observe(chunk);
      await streamer.accept(chunk);
    }
    return await streamer.finish();
  } finally {
    const report = meter.report(recorder.stepIdsSince(stepsBefore));
    if (report !== undefined) recorder.usage(report);
  }
}

/**
 * Run every tool call the chain has not answered yet, in order; consecutive delegate calls run
 * together, as one batch. Arguments that fail the tool's schema become an observation with the
 * error, so the model can fix them on its next turn. A valid `ask_user` call is not run: the
 * server stopped the run at it and waits for the user, whose answer is its observation on the next
 * run (PROTOCOL.md §25.1, §25.6), so the run ends there (`asked`).
 */
async function answerToolCalls(context: AgentRunContext, chain: readonly ChainStep[]): Promise<'asked' | undefined> {
  for (const group of callGroups(unansweredToolCalls(chain))) {
    const call = group[0]!;
    if (call.tool === DELEGATE_TOOL) {
      await runDelegateBatch(context, group);
      continue;
    }
    const tool = call.tool ?? '';
    // Checked against the one schema whatever the toolbox holds: the model was offered ask_user either way.
    const check = tool === ASK_USER_TOOL ? checkToolInput(askUserTool, tool, call.content) : context.tools.checkInput(tool, call.content);
    if (check.ok && tool === ASK_USER_TOOL) return 'asked';
    if (check.ok) {
      await observeTool(context, tool, check.input);
    } else {
      const result = { error: check.message, details: check.details };
      await streamStep(context.sink, 'observation', `Error: ${check.message}`, { tool, result });
    }
  }
}
