import { ASK_USER_TOOL, AskUserInputSchema, type AskUserInput } from '@interthought/protocol';
import { ToolError, type Tool } from './tool.js';

/**
 * `ask_user` (PROTOCOL.md §25.1): the agent asks the user and waits for the answer. It never
 * runs: the server ends the run at a valid call and the answer (`input.provide`) becomes its
 * observation. It is a tool so that every agent is offered it, a model sees its schema, and a bad
 * call (or a user's correction of one) is checked like any tool's input.
 */
export const askUserTool: Tool<AskUserInput> = {
  name: ASK_USER_TOOL,
  // Asking changes nothing in the world; and it never waits for approval whatever the policy (§25.1).
  effect: 'read',
  description:
    'Ask the user a question and wait for the answer, when you cannot go on without them: a missing fact, ' +
    'a choice between options, a confirmation. Give "choices" when a few answers are likely; the user may ' +
    'still answer in their own words. The answer comes back as this call\'s result.',
  inputSchema: AskUserInputSchema,
  execute() {
    // Reached only if an agent runs the call itself instead of ending its step: the server answers it.
    return Promise.reject(
      new ToolError(`${ASK_USER_TOOL} is not run by the agent: the server stops the run at the call and the user's answer becomes its observation.`),
    );
  },
};
