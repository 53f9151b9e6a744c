import { afterEach, describe, expect, it } from 'vitest';
import { I18n } from '$lib/i18n/index.js';
import { SessionController } from '$lib/session-page/session-controller.svelte.js';
import SessionHeader from '$lib/session-page/SessionHeader.svelte';
import { formatUsd, sessionUsageLine, stepUsageDetails, stepUsageLine } from '$lib/usage/index.js';
import { createTestApp, mountWithApp, settle } from '../../support/app.js';
import { createHarness } from '../../support/chain-harness.js';
import { EventLog, ManualFrames } from '../../support/session-events.js';
import { useStepCards } from '../../support/step-cards.js';

const en = new I18n({ languages: ['en-US'] });
const zh = new I18n({ languages: ['zh-CN'] });

describe('usage formatting', () => {
  it('shows a cost as precisely as it needs', () => {
    expect(formatUsd(en, 0.0021)).toBe('$0.0021');
    expect(formatUsd(en, 0.04712)).toBe('$0.047');
    expect(formatUsd(en, 3.456)).toBe('$3.46');
    expect(formatUsd(en, 0.00000807)).toBe('< $0.0001');
    expect(formatUsd(en, 0)).toBe('$0');
  });

  it("puts a step's call in one line: tokens in and out, first token, cost", () => {
    const usage = { model: 'gpt-4o-mini', inputTokens: 1234, outputTokens: 56, costUsd: 0.0021, timeToFirstTokenMs: 812 };
    expect(stepUsageLine(en, usage)).toBe('1,234 → 56 tokens · first token 0.8s · $0.0021');
    expect(stepUsageLine(zh, usage)).toBe('1,234 → 56 tokens · 首个 token 0.8秒 · US$0.0021');
    expect(stepUsageLine(en, { model: 'local', inputTokens: 10, outputTokens: 2 })).toBe('10 → 2 tokens');
  });

  it('spells the details out for the tooltip, saying when a model has no price', () => {
    expect(stepUsageDetails(en, { model: 'local', inputTokens: 1000, outputTokens: 40, cachedTokens: 800, reasoningTokens: 12, durationMs: 2300 })).toBe(
      'Model local · 1,000 input tokens (800 from cache), 40 output tokens (12 reasoning) · whole answer 2.3s · no price set for this model',
    );
  });

  it('sums a session up: all its tokens, and the cost when known', () => {
    expect(sessionUsageLine(en, { inputTokens: 12000, outputTokens: 345, costUsd: 0.042, calls: 3 })).toBe('12,345 tokens · $0.042');
    expect(sessionUsageLine(zh, { inputTokens: 1, outputTokens: 0, calls: 1 })).toBe('1 tokens');
  });
});

describe('StepCard with usage', () => {
  const { render } = useStepCards();

  it('shows the usage line on the step that carries it only', () => {
    const harness = createHarness();
    const thought = harness.log.step('thought', 'Let me compute.');
    const answer = harness.log.step('final_answer', 'It is 36.');
    harness.log.usage([thought, answer], { inputTokens: 1234, outputTokens: 56, costUsd: 0.0021 }, { timeToFirstTokenMs: 812 });
    harness.deliver();
    expect(render(harness, thought).article.querySelector('[data-usage]')).toBeNull();
    const line = render(harness, answer).article.querySelector<HTMLElement>('[data-usage]')!;
    expect(line.textContent).toContain('1,234 → 56 tokens · first token 0.8s · $0.0021');
    expect(line.title).toBe('Model gpt-4o-mini · 1,234 input tokens, 56 output tokens');
  });

  it('shows it once the call is recorded, after the step completed', () => {
    const harness = createHarness('zh');
    const answer = harness.log.step('final_answer', 'It is 36.');
    harness.deliver();
    const { article } = render(harness, answer);
    expect(article.querySelector('[data-usage]')).toBeNull();
    harness.log.usage([answer], { inputTokens: 10, outputTokens: 3 });
    harness.deliver();
    expect(article.querySelector('[data-usage]')?.textContent).toContain('10 → 3 tokens');
  });
});

describe('SessionHeader with usage', () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => {
    cleanup?.();
    cleanup = undefined;
  });

  async function header(locale: 'en' | 'zh', fill: (log: EventLog) => void): Promise<HTMLElement> {
    const test = createTestApp(locale);
    const log = new EventLog('s1');
    const frames = new ManualFrames();
    const controller = new SessionController({ ...test.app, i18n: test.i18n, schedule: frames.schedule }, log.sessionId);
    controller.view.loadSnapshot(log.emptySnapshot());
    const mounted = mountWithApp(SessionHeader, { controller }, test);
    cleanup = mounted.destroy;
    fill(log);
    for (const event of log.events) controller.view.enqueue(event);
    frames.run();
    await settle();
    return mounted.target;
  }

  it('shows the totals of every call, and none before the first', async () => {
    const none = await header('en', (log) => log.step('thought', 'Hmm.'));
    expect(none.querySelector('[data-session-usage]')).toBeNull();
    cleanup?.();
    const target = await header('en', (log) => {
      const a = log.step('tool_call', '{"expression":"240 * 15%"}', { tool: 'calculator' });
      log.usage([a], { inputTokens: 1000, outputTokens: 40, costUsd: 0.001 });
      const b = log.step('final_answer', '36');
      log.usage([b], { inputTokens: 1100, outputTokens: 5, costUsd: 0.0011 });
    });
    const totals = target.querySelector<HTMLElement>('[data-session-usage]')!;
    expect(totals.textContent?.trim()).toBe('2,145 tokens · $0.0021');
    expect(totals.title).toBe('2 model calls · 2,100 input tokens, 45 output tokens');
  });

  it('explains a budget stop in the user language, with what to do', async () => {
    const target = await header('zh', (log) => {
      const a = log.step('final_answer', '36');
      log.usage([a], { inputTokens: 900, outputTokens: 150 });
      log.status('failed', undefined, { error: 'Token budget spent: 1,050 of 1,000 tokens used.', failure: 'budget' });
    });
    const banner = target.querySelector<HTMLElement>('[data-failure="budget"]')!;
    expect(banner.textContent?.trim()).toBe('此会话的 token 预算已用完（已用 1,050 tokens），因此已停止。从任一步骤分叉，即可用新的预算继续。');
  });
});
