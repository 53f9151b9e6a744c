import type { OpenAI } from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { AgentRunContext } from '../agent.js';
import { streamStep } from '../stream-text.js';
import { observeTool } from '../tool-steps.js';
import { ChainRecorder, type ChainStep } from './chain-recorder.js';
import { streamChatCompletion } from './chat-stream.js';
import { OPENAI_DEFAULT_BASE_URL, type OpenAIConfig } from './config.js';
import { buildMessages, unansweredToolCalls } from './history.js';
import { toolDefinitions } from './tool-definitions.js';
import { TurnStreamer } from './turn-streamer.js';

/**
 * One run of the `openai` agent: continue the chain until the model gives its final answer.
 * Each model turn is asked with the whole chain as history (corrections in place), so a
 * regeneration after a correction builds on the corrected content for real.
 */
export async function runAgentLoop(client: OpenAI, config: OpenAIConfig, context: AgentRunContext): Promise<void> {
  const chain: ChainStep[] = context.chain.map((step) => ({ ...step }));
  const recorder = new ChainRecorder(context.sink, chain);
  const run: AgentRunContext = { ...context, sink: recorder };
  // The user corrected the final answer itself: that answer stands.
  if (chain.at(-1)?.kind === 'final_answer') return;
  // A chain that ends in a (corrected) tool call gets its result before the model is asked again.
  await answerToolCalls(run, chain);
  const tools = toolDefinitions(context.tools);
  for (let turn = 1; turn <= config.maxIterations; turn++) {
    const body: ChatCompletionCreateParamsStreaming = {
      model: context.options.model ?? config.model,
      messages: buildMessages(context.task, chain, config.thoughtReplay),
      stream: true,
    };
    if (tools.length) body.tools = tools;
    if (context.options.temperature !== undefined) body.temperature = context.options.temperature;
    const streamer = new TurnStreamer(recorder);
    const chunks = streamChatCompletion(client, body, {
      signal: context.signal,
      sink: recorder,
      retry: config.retry,
      facts: { baseURL: config.baseURL ?? OPENAI_DEFAULT_BASE_URL, timeoutMs: config.timeoutMs, attempts: config.retry.attempts },
    });
    for await (const chunk of chunks) await streamer.accept(chunk);
    const outcome = await streamer.finish();
    if (outcome.answered) return;
    await answerToolCalls(run, chain);
  }
  throw new Error(`stopped after ${config.maxIterations} model turns without a final answer`);
}

/**
 * Run every tool call the chain has not answered yet, in order. Arguments that fail the tool's
 * schema become an observation with the error, so the model can fix them on its next turn.
 */
async function answerToolCalls(context: AgentRunContext, chain: readonly ChainStep[]): Promise<void> {
  for (const call of unansweredToolCalls(chain)) {
    const tool = call.tool ?? '';
    const check = context.tools.checkInput(tool, call.content);
    if (check.ok) {
      await observeTool(context, tool, check.input);
    } else {
      const result = { error: check.message, details: check.details };
      await streamStep(context.sink, 'observation', `Error: ${check.message}`, { tool, result });
    }
  }
}
