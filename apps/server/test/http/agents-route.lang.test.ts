import type { AgentListing } from '@interthought/protocol';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { openAIAgent } from '../../src/agents/openai/openai-agent.js';
import { readOpenAIConfig } from '../../src/agents/openai/config.js';
import { buildTestApp } from '../support/server.js';

const HAN = /[\u4e00-\u9fff]/;

// GET /api/agents in the reader's language (PROTOCOL.md §18).
describe('GET /api/agents?lang=', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(() => app.close());

  async function listed(query: string, headers: Record<string, string> = {}): Promise<AgentListing[]> {
    const response = await app.inject({ url: `/api/agents${query}`, headers });
    expect(response.statusCode).toBe(200);
    return response.json() as AgentListing[];
  }

  it('says the demo agent in English by default, as old clients always got it', async () => {
    const demo = (await listed('')).find((agent) => agent.name === 'demo')!;
    expect(demo.description).toMatch(/^Offline demo agent/);
  });

  it('says it in Chinese for lang=zh and for a Chinese Accept-Language, the same agents in the same order', async () => {
    const english = await listed('?lang=en');
    for (const chinese of [await listed('?lang=zh'), await listed('', { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' })]) {
      expect(chinese.map((agent) => agent.name)).toEqual(english.map((agent) => agent.name));
      expect(chinese.find((agent) => agent.name === 'demo')!.description).toMatch(/^离线演示智能体/);
      // No listing mixes a Chinese label with an English reason: every built-in reason is said in Chinese too.
      for (const agent of chinese.filter((entry) => entry.reason !== undefined && entry.name === 'openai')) expect(agent.reason).toMatch(HAN);
    }
  });

  it('refuses a language it does not speak with 400', async () => {
    expect((await app.inject('/api/agents?lang=fr')).statusCode).toBe(400);
  });

  it('gives an unconfigured openai agent its reason in Chinese too, so the 中文 picker never mixes languages', () => {
    const registry = new AgentRegistry().register(openAIAgent({ name: 'openai', config: readOpenAIConfig({}) }));
    const [zh] = registry.list('zh');
    expect(zh).toMatchObject({ available: false, reason: expect.stringMatching(/^设置 OPENAI_API_KEY/) });
    expect(zh!.description).toMatch(HAN);
    expect(registry.list()[0]!.reason).toMatch(/^Set OPENAI_API_KEY/);
  });
});
