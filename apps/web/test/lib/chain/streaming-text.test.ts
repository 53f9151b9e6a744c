import { flushSync, mount, unmount } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import StreamingText from '$lib/chain/StreamingText.svelte';
import { loadMath } from '$lib/markdown/index.js';

const mounted: Record<string, unknown>[] = [];
afterEach(() => {
  for (const component of mounted.splice(0)) void unmount(component);
  document.body.innerHTML = '';
});

async function show(props: { text: string; freshStarts: readonly number[]; monospace?: boolean }): Promise<HTMLElement> {
  const target = document.createElement('div');
  document.body.append(target);
  mounted.push(mount(StreamingText, { target, props }));
  await loadMath();
  // The component loads KaTeX itself on its first formula; let that promise settle.
  await new Promise((resolve) => setTimeout(resolve, 0));
  flushSync();
  return target;
}

describe('StreamingText with math', () => {
  it('typesets a complete formula while the step streams, and keeps an open one as text', async () => {
    const target = await show({ text: 'Area $\\pi r^2$, cost $40, next $x^2 +', freshStarts: [] });
    expect(target.querySelectorAll('.katex')).toHaveLength(1);
    expect(target.querySelector('annotation')?.textContent).toBe('\\pi r^2');
    expect(target.textContent).toContain(', cost $40, next $x^2 +');
  });

  it('leaves a formula that is still fading in (a fresh run) as text until it settles', async () => {
    const text = 'Area $\\pi r^2$';
    const target = await show({ text, freshStarts: [text.indexOf('^')] });
    expect(target.querySelectorAll('.katex')).toHaveLength(0);
    expect(target.textContent).toContain('Area $\\pi r^2$');
  });

  it('never typesets data (tool input, tool output)', async () => {
    const target = await show({ text: '{"price": "$x$"}', freshStarts: [], monospace: true });
    expect(target.querySelectorAll('.katex')).toHaveLength(0);
  });
});
