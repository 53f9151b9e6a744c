import type { CorrectionFilter } from '@interthought/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { RestApi } from '$lib/api/rest-api.js';
import CorrectionsPage from '$lib/corrections/CorrectionsPage.svelte';
import { createTestApp, mountWithApp, testHello, until, type TestApp } from '../../support/app.js';
import { fetchFrom, json, record } from '../../support/correction-records.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

function render(test: TestApp, responses: Parameters<typeof fetchFrom>[0], filter: CorrectionFilter = {}) {
  const { fetchImpl, urls } = fetchFrom(responses);
  test.app.api = new RestApi({ fetch: fetchImpl });
  const changes: CorrectionFilter[] = [];
  const mounted = mountWithApp(CorrectionsPage, { filter, onFilterChange: (next: CorrectionFilter) => changes.push(next) }, test);
  cleanup = mounted.destroy;
  return { target: mounted.target, urls, changes };
}

const ROWS = [
  record({ correction: 'approval_edited', stepId: 'callWaiting000000000', correctedStepId: 'callRan0000000000000', note: undefined }),
  record({ correction: 'rejected', stepId: 'callRefused000000000', correctedStepId: 'refusalObservation00', after: 'not that tool', note: undefined, by: 'u_me', byName: 'Me' }),
  record({ kind: 'thought', tool: undefined, index: 0, before: 'I need 15% of 240.', after: 'I need 25% of 240.', stepId: 'thoughtOld0000000000', correctedStepId: 'thoughtNew0000000000' }),
];

describe('the Corrections page', () => {
  it('lists each correction: kind and tool, the step, what was done in words, who, the note and the diff', async () => {
    const test = createTestApp('en', { hello: testHello({ user: { id: 'u_me', name: 'Me' } }) });
    const { target, urls } = render(test, [json({ corrections: ROWS, nextCursor: 'c1' })], { agent: 'demo' });
    await until(() => target.querySelectorAll('[data-correction]').length === 3);
    expect(urls).toEqual(['/api/corrections?agent=demo&limit=20']);
    const [edited, refused, thought] = Array.from(target.querySelectorAll<HTMLElement>('[data-correction]'));
    expect(edited!.querySelector('header')!.textContent).toMatch(/Tool call\s*calculator\s*step 3\s*edited before it ran\s*by Ada · /);
    expect(refused!.querySelector('[data-who]')!.textContent).toMatch(/^by you · /);
    expect(refused!.querySelector('[data-reason]')!.textContent).toBe('Reason: not that tool');
    expect(thought!.querySelector('[data-note]')!.textContent).toContain('the discount is 25%');
    // The diff: what was struck and what was written instead.
    expect(thought!.querySelector('del')!.textContent).toContain('15');
    expect(thought!.querySelector('ins')!.textContent).toContain('25');
    // A row opens the step standing on the chain now: an edit's new step, a refused call itself.
    const hrefs = Array.from(target.querySelectorAll<HTMLAnchorElement>('a[data-action="open-step"]')).map((a) => a.getAttribute('href'));
    expect(hrefs).toEqual([
      '/sessions/qhIGZHv58RpuAolAU69Ni?step=callRan0000000000000',
      '/sessions/qhIGZHv58RpuAolAU69Ni?step=callRefused000000000',
      '/sessions/qhIGZHv58RpuAolAU69Ni?step=thoughtNew0000000000',
    ]);
    expect(target.querySelector('[data-action="load-more"]')).not.toBeNull();
  });

  it('links both downloads with the filters shown, and says what each is for', async () => {
    const test = createTestApp();
    const { target } = render(test, [json({ corrections: [record()] })], { kind: 'tool_call', tool: 'calculator' });
    await until(() => target.querySelector('[data-correction]') !== null);
    const preference = target.querySelector<HTMLAnchorElement>('[data-download="preference"]')!;
    const sft = target.querySelector<HTMLAnchorElement>('[data-download="sft"]')!;
    expect(preference.getAttribute('href')).toBe('/api/corrections/export?format=preference&kind=tool_call&tool=calculator');
    expect(sft.getAttribute('href')).toBe('/api/corrections/export?format=sft&kind=tool_call&tool=calculator');
    const downloads = target.querySelector('[data-downloads]')!.textContent!;
    expect(downloads).toContain('DPO');
    expect(downloads).toContain('fine-tuning');
  });

  it('changes a filter through the address it asks for', async () => {
    const test = createTestApp();
    const { target, changes } = render(test, [json({ corrections: [record(), record({ kind: 'thought', stepId: 'other0000000000000000' })] })], { agent: 'demo' });
    await until(() => target.querySelectorAll('[data-correction]').length === 2);
    const kind = target.querySelector<HTMLSelectElement>('select[name="kind"]')!;
    kind.value = 'thought';
    kind.dispatchEvent(new Event('change', { bubbles: true }));
    expect(changes).toEqual([{ agent: 'demo', kind: 'thought' }]);
    // The tool filter offers the tools seen.
    expect(Array.from(target.querySelectorAll<HTMLOptionElement>('select[name="tool"] option')).map((option) => option.value)).toEqual(['', 'calculator']);
  });

  it('tells a newcomer how corrections come to appear here', async () => {
    const test = createTestApp();
    const { target } = render(test, [json({ corrections: [] })]);
    await until(() => target.querySelector('[data-corrections-empty="none"]') !== null);
    expect(target.textContent).toContain('No corrections yet');
    expect(target.textContent).toContain('press Correct');
  });

  it('says when no correction matches the filters, with a way to clear them', async () => {
    const test = createTestApp();
    const { target, changes } = render(test, [json({ corrections: [] })], { kind: 'observation' });
    await until(() => target.querySelector('[data-corrections-empty="filtered"]') !== null);
    target.querySelector<HTMLButtonElement>('[data-corrections-empty="filtered"] button')!.click();
    expect(changes).toEqual([{}]);
  });

  it('shows the server’s refusal and tries again', async () => {
    const test = createTestApp();
    const { target } = render(test, [json({ code: 'FORBIDDEN', message: 'A share link cannot list corrections.' }, 403), json({ corrections: [record()] })]);
    await until(() => target.querySelector('[data-corrections-error]') !== null);
    expect(target.querySelector('[data-corrections-error]')!.textContent).toContain('A share link cannot list corrections.');
    target.querySelector<HTMLButtonElement>('[data-corrections-error] button')!.click();
    await until(() => target.querySelector('[data-correction]') !== null);
  });

  it('speaks Chinese', async () => {
    const test = createTestApp('zh');
    const { target } = render(test, [json({ corrections: [record({ correction: 'rejected', after: '' })] })]);
    await until(() => target.querySelector('[data-correction]') !== null);
    expect(target.querySelector('h1')!.textContent).toBe('修正记录');
    expect(target.querySelector('[data-act]')!.textContent).toBe('已拒绝');
    expect(target.querySelector('[data-reason]')!.textContent).toBe('拒绝时未给出原因。');
    expect(target.querySelector('[data-download="preference"]')!.textContent).toContain('偏好对');
    expect(target.querySelector('a[data-action="open-step"]')!.textContent).toContain('在会话中打开第 3 步');
  });
});
