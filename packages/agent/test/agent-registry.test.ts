import { describe, expect, it } from 'vitest';
import type { Agent, AgentAvailability } from '../src/agent.js';
import { AgentRegistry } from '../src/agent-registry.js';

function agentNamed(name: string, availability: AgentAvailability = { available: true }): Agent {
  return { name, description: `the ${name} agent`, availability: () => availability, run: async () => undefined };
}

describe('AgentRegistry', () => {
  it('finds an agent by name and lists each with its availability, the default marked', () => {
    const registry = new AgentRegistry('demo').register(agentNamed('demo')).register(agentNamed('openai', { available: false, reason: 'no endpoint' }));
    expect(registry.get('demo')?.name).toBe('demo');
    expect(registry.get('missing')).toBeUndefined();
    expect(registry.list()).toEqual([
      { name: 'demo', description: 'the demo agent', available: true, default: true },
      { name: 'openai', description: 'the openai agent', available: false, reason: 'no endpoint', default: false },
    ]);
  });

  it('lists the models an agent offers and its default, and whether it takes others', () => {
    const registry = new AgentRegistry('demo')
      .register({ ...agentNamed('deepseek'), models: { default: 'deepseek-chat', offered: ['deepseek-chat', 'deepseek-reasoner'] } })
      .register({ ...agentNamed('openai'), models: { default: 'gpt-4o-mini', offered: ['gpt-4o-mini'], any: true } });
    expect(registry.list()).toEqual([
      { name: 'deepseek', description: 'the deepseek agent', available: true, default: false, models: ['deepseek-chat', 'deepseek-reasoner'], defaultModel: 'deepseek-chat' },
      { name: 'openai', description: 'the openai agent', available: true, default: false, models: ['gpt-4o-mini'], defaultModel: 'gpt-4o-mini', anyModel: true },
    ]);
  });

  it('refuses a second agent of the same name', () => {
    const registry = new AgentRegistry().register(agentNamed('demo'));
    expect(() => registry.register(agentNamed('demo'))).toThrow('Agent "demo" is already registered.');
  });
});
