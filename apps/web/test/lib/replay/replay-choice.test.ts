import type { AgentListing } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { ReplayChoice, replayFields } from '$lib/replay/index.js';

const AGENTS: AgentListing[] = [
  { name: 'demo', description: 'A scripted agent', available: true, default: true },
  { name: 'builder', description: 'Builds on workers', available: false, reason: 'no worker connected', default: false },
  { name: 'deepseek', description: 'DeepSeek', available: true, default: false, models: ['deepseek-chat', 'deepseek-reasoner'], defaultModel: 'deepseek-chat' },
];

describe('ReplayChoice', () => {
  it('starts on another available agent than the session’s, at its default model', () => {
    const choice = new ReplayChoice('demo');
    choice.loaded(AGENTS);
    expect(choice.agent).toBe('deepseek');
    expect(choice.target).toEqual({ agent: 'deepseek', model: 'deepseek-chat' });
    choice.model = 'deepseek-reasoner';
    expect(replayFields(choice.target!)).toEqual({ run: true, agent: 'deepseek', options: { model: 'deepseek-reasoner' } });
  });

  it('asks no model of an agent without models, and nothing of an unavailable one', () => {
    const choice = new ReplayChoice('deepseek');
    choice.loaded(AGENTS);
    expect(choice.target).toEqual({ agent: 'demo' });
    expect(replayFields(choice.target!)).toEqual({ run: true, agent: 'demo' });
    choice.pick('builder');
    expect(choice.target).toBeUndefined();
  });
});
