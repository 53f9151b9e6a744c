import type { AgentListing } from '@interthought/protocol';
import { flushSync } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import HomePage from '$lib/home/HomePage.svelte';
import { chosenModel, modelChoices } from '$lib/home/model-choice.js';
import { buttonNamed, createTestApp, mountWithApp, settle, until, type TestApp } from '../../support/app.js';

const AGENTS: AgentListing[] = [
  { name: 'demo', description: 'A scripted agent', available: true, default: true },
  { name: 'deepseek', description: 'DeepSeek', available: true, default: false, models: ['deepseek-chat', 'deepseek-reasoner'], defaultModel: 'deepseek-chat' },
  { name: 'local', description: 'Ollama', available: true, default: false, models: ['qwen3:14b'], defaultModel: 'qwen3:14b' },
  { name: 'builder', description: 'Builds on workers', available: false, reason: 'no worker connected', default: false },
];

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

async function render(test: TestApp) {
  (test.app.api as { agents: () => Promise<AgentListing[]> }).agents = async () => AGENTS;
  (test.app.api as { tools: () => Promise<unknown[]> }).tools = async () => [];
  test.answer = async (request) => {
    if (request.type !== 'session.create') return undefined;
    const { task, agent } = request as unknown as { task: string; agent?: string };
    return { type: 'session.created', session: { sessionId: 's-new', task, agent: agent ?? 'demo', status: 'running', revision: 0, createdAt: new Date().toISOString() } };
  };
  const mounted = mountWithApp(HomePage, { openSession: () => undefined }, test);
  cleanup = mounted.destroy;
  await until(() => mounted.target.querySelectorAll('input[name="agent"]').length === AGENTS.length);
  const box = mounted.target.querySelector<HTMLTextAreaElement>('textarea[name="task"]')!;
  box.value = 'Summarise the news';
  box.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
  return mounted.target;
}

function pickAgent(target: HTMLElement, name: string): void {
  target.querySelector<HTMLInputElement>(`input[name="agent"][value="${name}"]`)!.click();
  flushSync();
}

const modelSelect = (target: HTMLElement) => target.querySelector<HTMLSelectElement>('select[name="model"]');

describe('the agent picker’s models', () => {
  it('offers no model choice for an agent without several models', async () => {
    const target = await render(createTestApp());
    expect(modelSelect(target)).toBeNull();
    pickAgent(target, 'local');
    expect(modelSelect(target)).toBeNull();
  });

  it('shows the models of an agent that has several, its default first picked, labelled for people', async () => {
    const target = await render(createTestApp());
    pickAgent(target, 'deepseek');
    const select = modelSelect(target)!;
    expect(select.closest('label')?.textContent).toContain('Model');
    expect(Array.from(select.options).map((option) => option.textContent?.trim())).toEqual(['deepseek-chat (default)', 'deepseek-reasoner']);
    expect(select.value).toBe('deepseek-chat');
    // A native select: reachable with Tab and changed with the arrow keys.
    expect(select.tabIndex).toBe(0);
    expect(select.disabled).toBe(false);
  });

  it('starts the session with the model picked', async () => {
    const test = createTestApp();
    const target = await render(test);
    pickAgent(target, 'deepseek');
    const select = modelSelect(target)!;
    select.value = 'deepseek-reasoner';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    flushSync();
    buttonNamed(target, /^Start/)!.click();
    await settle();
    expect(test.requests).toEqual([{ type: 'session.create', task: 'Summarise the news', agent: 'deepseek', options: { model: 'deepseek-reasoner' } }]);
  });

  it('asks for no model once another agent is picked', async () => {
    const test = createTestApp();
    const target = await render(test);
    pickAgent(target, 'deepseek');
    pickAgent(target, 'local');
    buttonNamed(target, /^Start/)!.click();
    await settle();
    expect(test.requests).toEqual([{ type: 'session.create', task: 'Summarise the news', agent: 'local' }]);
  });

  it('says it in Chinese', async () => {
    const target = await render(createTestApp('zh'));
    pickAgent(target, 'deepseek');
    const select = modelSelect(target)!;
    expect(select.closest('label')?.textContent).toContain('模型');
    expect(select.options[0]?.textContent?.trim()).toBe('deepseek-chat（默认）');
    expect(target.textContent).toContain('不可用：no worker connected');
  });
});

describe('modelChoices and chosenModel', () => {
  const deepseek = AGENTS[1];
  it('choose the picked model when the agent offers it, else its default', () => {
    expect(modelChoices(deepseek)).toEqual(['deepseek-chat', 'deepseek-reasoner']);
    expect(chosenModel(deepseek, 'deepseek-reasoner')).toBe('deepseek-reasoner');
    expect(chosenModel(deepseek, 'qwen3:14b')).toBe('deepseek-chat');
    expect(chosenModel(deepseek, undefined)).toBe('deepseek-chat');
  });

  it('leave nothing to choose for one model or none', () => {
    expect(modelChoices(AGENTS[2])).toEqual([]);
    expect(chosenModel(AGENTS[2], 'qwen3:14b')).toBeUndefined();
    expect(chosenModel(AGENTS[0], undefined)).toBeUndefined();
    expect(chosenModel(undefined, undefined)).toBeUndefined();
  });
});
