import { flushSync } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { virtualChainNavigation } from '$lib/chain/chain-navigation.js';
import ChainTimeline from '$lib/chain/ChainTimeline.svelte';
import { VirtualChain } from '$lib/chain/virtual-rows/virtual-chain.svelte.js';
import { createHarness, mountInChain } from '../../../support/chain-harness.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe('virtualChainNavigation', () => {
  it('opens the fold that hides a step, resolves with its card and focuses it; the fold stays open once unmounted', async () => {
    const harness = createHarness();
    const { log } = harness;
    const thoughts = [log.step('thought', 'one'), log.step('thought', 'two'), log.step('thought', 'three')];
    const answer = log.step('final_answer', 'done');
    harness.deliver();
    const virtual = new VirtualChain(() => harness.session.layout.rows);
    const mounted = mountInChain(ChainTimeline, { virtual }, harness);
    cleanup = mounted.destroy;
    flushSync();
    expect(mounted.target.querySelector(`[data-step-id="${thoughts[1]}"]`)).toBeNull();
    const navigation = virtualChainNavigation(harness.session, virtual);
    const card = await navigation.reveal(thoughts[1]!, { focus: true });
    expect(card?.dataset.stepId).toBe(thoughts[1]);
    expect(document.activeElement).toBe(card);
    const foldKey = harness.session.layout.rows[0]!.key;
    expect(harness.session.isFoldOpen(foldKey)).toBe(true);
    // The row holding the focus is one the list keeps mounted.
    expect(virtual.keepMounted).toContain(0);
    expect(await navigation.reveal(answer)).not.toBeNull();
    expect(await navigation.reveal('no-such-step')).toBeNull();
    // Drawn again later (another mount of the same session), the fold comes back open.
    cleanup();
    const again = mountInChain(ChainTimeline, {}, harness);
    cleanup = again.destroy;
    flushSync();
    expect(again.target.querySelector(`[data-step-id="${thoughts[2]}"]`)).not.toBeNull();
  });

  it('unfolds the sub-agent panel around a step inside it', async () => {
    const harness = createHarness();
    const { log } = harness;
    log.step('thought', 'Delegate the part.');
    const part = log.delegate('part 1', 'What is 17 * 23 + 4?');
    const inner = log.step('tool_call', '{"expression":"17 * 23 + 4"}', { tool: 'calculator', scope: part });
    log.subagentStatus(part, 'completed');
    harness.deliver();
    const virtual = new VirtualChain(() => harness.session.layout.rows);
    const mounted = mountInChain(ChainTimeline, { virtual }, harness);
    cleanup = mounted.destroy;
    flushSync();
    const card = await virtualChainNavigation(harness.session, virtual).reveal(inner);
    expect(card?.dataset.stepId).toBe(inner);
  });
});
