import type { Agent } from '@interthought/agent';
import type { SessionOptions } from '@interthought/protocol';
import { SessionError } from '../session-error.js';

/**
 * The model a new session runs on (PROTOCOL.md §9.1 "`session.create`", its part "The session's model"): the one it names, if
 * the agent offers it, else the agent's default; undefined for an agent that takes no model
 * choice. A model the agent does not offer is refused with `INVALID_OPTIONS`, naming those it does.
 */
export function sessionModel(agent: Agent, options: SessionOptions): string | undefined {
  const { models } = agent;
  if (models === undefined) return undefined;
  const asked = options.model;
  if (asked === undefined) return models.default;
  if (models.offered.includes(asked) || models.any === true) return asked;
  const offered = models.offered.map((model) => `"${model}"`).join(', ');
  throw new SessionError('INVALID_OPTIONS', `Agent "${agent.name}" does not offer the model "${asked}"; it offers ${offered}. Pick one of them, or name none for "${models.default}".`, [
    { path: ['options', 'model'], message: `Expected one of ${offered}` },
  ]);
}
