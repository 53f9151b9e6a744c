import { flushSync } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import ChainTimeline from '$lib/chain/ChainTimeline.svelte';
import { createHarness, mountInChain, type Harness } from '../../support/chain-harness.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

function render(harness: Harness) {
  const mounted = mountInChain(ChainTimeline, {}, harness);
  cleanup = mounted.destroy;
  return mounted.target;
}

function parallelParts(harness: Harness) {
  const { log } = harness;
  log.step('thought', 'Two independent parts: one sub-agent each.');
  const part1 = log.delegate('part 1', 'What is 17 * 23 + 4?');
  const part2 = log.delegate('part 2', 'What is 15% of 240?');
  const call1 = log.step('tool_call', '{"expression":"17 * 23 + 4"}', { tool: 'calculator', scope: part1 });
  const thinking = log.start('thought', { scope: part2 });
  log.delta(thinking, 'Fifteen percent');
  harness.deliver();
  return { part1, part2, call1, thinking };
}

const panel = (root: ParentNode, name: string) => root.querySelector<HTMLElement>(`section[data-subagent-name="${name}"]`)!;
const stepIdsIn = (element: ParentNode) => Array.from(element.querySelectorAll<HTMLElement>('[data-step-id]')).map((el) => el.dataset.stepId);

describe('sub-agent panels', () => {
  it('draws a batch as one panel per sub-agent, under its delegate call, with name, agent, status and progress', () => {
    const harness = createHarness();
    const { part1, part2, call1, thinking } = parallelParts(harness);
    const target = render(harness);
    const batch = target.querySelector<HTMLElement>('[data-subagent-batch]')!;
    expect(batch.dataset.subagentBatch).toBe('2');
    expect(batch.textContent).toContain('2 sub-agents in parallel');
    const columns = Array.from(batch.querySelectorAll<HTMLElement>('.column'));
    expect(columns.map((column) => column.querySelector('article')?.dataset.stepId)).toEqual([part1, part2]);
    const first = panel(target, 'part 1');
    expect(columns[0]!.contains(first)).toBe(true);
    expect(first.getAttribute('aria-label')).toBe('Sub-agent part 1');
    expect(first.querySelector('.agent')?.textContent).toBe('demo');
    expect(first.querySelector('[data-subagent-status]')?.textContent?.trim()).toBe('Running');
    expect(first.querySelector('[data-subagent-progress]')?.textContent?.trim()).toBe('1 step');
    expect(stepIdsIn(first)).toEqual([call1]);
    const second = panel(target, 'part 2');
    expect(second.querySelector('[data-subagent-progress]')?.textContent?.replace(/\s+/g, ' ').trim()).toBe('1 step · Thought · writing…');
    expect(stepIdsIn(second)).toEqual([thinking]);
  });

  it('goes to completed with its usage, and stops offering the cancel button', () => {
    const harness = createHarness();
    const { part1, call1 } = parallelParts(harness);
    const target = render(harness);
    expect(panel(target, 'part 1').querySelector('[data-action="cancel-subagent"]')).not.toBeNull();
    harness.log.usage([call1], { inputTokens: 1200, outputTokens: 34, costUsd: 0.0021 });
    harness.log.subagentStatus(part1, 'completed');
    harness.deliver();
    flushSync();
    const first = panel(target, 'part 1');
    expect(first.dataset.status).toBe('completed');
    expect(first.querySelector('[data-subagent-status]')?.textContent?.trim()).toBe('Completed');
    expect(first.querySelector('[data-subagent-usage]')?.textContent).toContain('1,234 tokens');
    expect(first.querySelector('[data-action="cancel-subagent"]')).toBeNull();
  });

  it('folds and unfolds a sub-agent’s steps from its header button', () => {
    const harness = createHarness();
    const { call1 } = parallelParts(harness);
    const target = render(harness);
    const toggle = panel(target, 'part 1').querySelector<HTMLButtonElement>('button[aria-expanded]')!;
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(document.getElementById(toggle.getAttribute('aria-controls')!)).not.toBeNull();
    toggle.click();
    flushSync();
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(stepIdsIn(panel(target, 'part 1'))).toEqual([]);
    // The other sub-agent stays open.
    expect(stepIdsIn(panel(target, 'part 2'))).toHaveLength(1);
    toggle.click();
    flushSync();
    expect(stepIdsIn(panel(target, 'part 1'))).toEqual([call1]);
  });

  it('asks to cancel one running sub-agent, and offers no cancel to a viewer', () => {
    const harness = createHarness();
    const { part2 } = parallelParts(harness);
    const target = render(harness);
    const cancel = panel(target, 'part 2').querySelector<HTMLButtonElement>('[data-action="cancel-subagent"]')!;
    expect(cancel.getAttribute('aria-label')).toBe('Stop the sub-agent part 2');
    cancel.click();
    expect(harness.actions.cancelledSubagents).toEqual([part2]);
    cleanup?.();
    harness.actions.rights = { role: 'viewer', steer: false, fork: false, remove: false, share: false, import: false };
    const watched = render(harness);
    expect(watched.querySelector('[data-action="cancel-subagent"]')).toBeNull();
    expect(watched.querySelector('[data-action="correct"]')).toBeNull();
  });

  it('corrects a step inside a sub-agent with the same editor, on that step', async () => {
    const harness = createHarness();
    const { call1 } = parallelParts(harness);
    const target = render(harness);
    const card = target.querySelector<HTMLElement>(`[data-step-id="${call1}"]`)!;
    card.querySelector<HTMLButtonElement>('[data-action="correct"]')!.click();
    flushSync();
    const editor = card.querySelector<HTMLTextAreaElement>('textarea')!;
    editor.value = '{"expression":"17 * 23 + 5"}';
    editor.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    const save = Array.from(card.querySelectorAll('button')).find((button) => /Save/.test(button.textContent ?? ''))!;
    save.click();
    await Promise.resolve();
    expect(harness.actions.submitted).toEqual([{ stepId: call1, content: '{"expression":"17 * 23 + 5"}', note: undefined }]);
  });

  it('shows the corrected step’s branch picker inside its panel and walks that scope’s branches', () => {
    const harness = createHarness();
    const { call1 } = parallelParts(harness);
    const fixed = harness.log.correct(call1, '{"expression":"17 * 23 + 5"}');
    harness.deliver();
    const target = render(harness);
    const first = panel(target, 'part 1');
    expect(first.querySelector('[data-superseded-count="1"]')).not.toBeNull();
    const picker = first.querySelector('[role="group"]')!;
    expect(picker.getAttribute('aria-label')).toBe('Branch 2 of 2');
    picker.querySelector<HTMLButtonElement>('button[aria-label="Previous branch"]')!.click();
    flushSync();
    expect(stepIdsIn(panel(target, 'part 1'))).toEqual([call1]);
    expect(panel(target, 'part 1').textContent).toContain('earlier branch of this sub-agent');
    // The root shows no earlier-branch banner: only the sub-agent's chain left its live branch.
    expect(target.querySelector('.chain > .branch-banner')).toBeNull();
    Array.from(panel(target, 'part 1').querySelectorAll('button')).find((button) => /Back to the live chain/.test(button.textContent ?? ''))!.click();
    flushSync();
    expect(stepIdsIn(panel(target, 'part 1'))).toEqual([fixed]);
  });

  it('draws a sub-agent’s own sub-agent nested inside its panel, under its delegate call', () => {
    const harness = createHarness();
    const { part1 } = parallelParts(harness);
    const inner = harness.log.delegate('check', 'Check 395.', part1);
    const checking = harness.log.step('thought', 'Checking the product.', { scope: inner });
    harness.deliver();
    const target = render(harness);
    const nested = panel(target, 'check');
    expect(panel(target, 'part 1').contains(nested)).toBe(true);
    expect(nested.closest('[data-subagent-batch]')?.querySelector('article')?.dataset.stepId).toBe(inner);
    expect(stepIdsIn(nested)).toEqual([checking]);
  });

  it('comes back on the tab the user picked when a narrow batch is drawn again (a long chain unmounts far rows)', () => {
    // happy-dom lays nothing out: the batch reads a phone's width, so it draws its sub-agents as tabs.
    const width = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientWidth');
    Object.defineProperty(HTMLElement.prototype, 'clientWidth', {
      configurable: true,
      get(this: HTMLElement) {
        return this.hasAttribute('data-subagent-batch') ? 390 : 0;
      },
    });
    try {
      const harness = createHarness();
      parallelParts(harness);
      const tabs = (root: ParentNode) => Array.from(root.querySelectorAll<HTMLElement>('[role="tab"]'));
      const first = render(harness);
      expect(tabs(first).map((tab) => tab.getAttribute('aria-selected'))).toEqual(['true', 'false']);
      tabs(first)[1]!.click();
      flushSync();
      expect(panel(first, 'part 2')).not.toBeNull();
      cleanup?.();

      const again = render(harness);
      expect(tabs(again).map((tab) => tab.getAttribute('aria-selected'))).toEqual(['false', 'true']);
      expect(panel(again, 'part 2')).not.toBeNull();
      expect(panel(again, 'part 1')).toBeNull();
    } finally {
      if (width) Object.defineProperty(HTMLElement.prototype, 'clientWidth', width);
    }
  });

  it('speaks Chinese', () => {
    const harness = createHarness('zh');
    parallelParts(harness);
    const target = render(harness);
    expect(target.querySelector('[data-subagent-batch]')?.textContent).toContain('2 个子代理并行');
    const first = panel(target, 'part 1');
    expect(first.getAttribute('aria-label')).toBe('子代理 part 1');
    expect(first.querySelector('[data-subagent-status]')?.textContent?.trim()).toBe('运行中');
    expect(first.querySelector('[data-subagent-progress]')?.textContent?.trim()).toBe('1 步');
    expect(first.querySelector('[data-action="cancel-subagent"]')?.textContent?.trim()).toBe('停止');
  });
});
