import type { Agent } from '@interthought/agent';
import type { SessionOptions } from '@interthought/protocol';
import type { SessionEngine } from '../sessions/session-engine.js';
import { checkOptions } from './session-input.js';
import { sessionModel } from './session-model.js';

/** The agent a new session runs and the options it records, checked (the one owner of these checks: `session.create` and `session.fork`). */
export interface CheckedSetup {
  agent: Agent;
  options: SessionOptions;
  model: string | undefined;
}

/**
 * `AGENT_NOT_FOUND`, `AGENT_UNAVAILABLE`, `BAD_FRAME` for bad options, `INVALID_OPTIONS` for a model
 * the agent does not offer; otherwise the options with the server's default policy and the model filled in.
 */
export function agentAndOptions(engine: SessionEngine, agentName: string, rawOptions: unknown): CheckedSetup {
  const checked = checkOptions(rawOptions);
  // The default is recorded with the session: every node and every restart applies the same policy.
  const approving = checked.approve === undefined && engine.defaultApprove !== undefined ? { ...checked, approve: engine.defaultApprove } : checked;
  const agent = engine.requireAgent(agentName);
  // The model too is recorded with the session: a resume calls the same one whatever the agent's default is by then.
  const model = sessionModel(agent, approving);
  const options = model === undefined ? approving : { ...approving, model };
  return { agent, options, model };
}
