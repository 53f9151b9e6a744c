import { describe, expect, it } from 'vitest';
import { correctionExportPath, correctionListPath } from '$lib/api/correction-query.js';
import { dayOfSince, dayOfUntil, filterFromQuery, filterHref, isFiltered, sameFilter, sinceOfDay, untilOfDay, withFilter } from '$lib/corrections/url-filters.js';

describe('the Corrections page address', () => {
  it('reads every filter of §26.2 from the query', () => {
    const query = new URLSearchParams('agent=demo&model=gpt-x&kind=tool_call&tool=calculator&user=u_ada&session=qhIGZHv58RpuAolAU69Ni&since=2026-11-01T00:00:00.000Z&until=2026-12-01T00:00:00.000Z');
    expect(filterFromQuery(query)).toEqual({
      agent: 'demo',
      model: 'gpt-x',
      kind: 'tool_call',
      tool: 'calculator',
      user: 'u_ada',
      session: 'qhIGZHv58RpuAolAU69Ni',
      since: '2026-11-01T00:00:00.000Z',
      until: '2026-12-01T00:00:00.000Z',
    });
  });

  it('drops a value the API would refuse instead of sending it, and ignores parameters it does not know', () => {
    const query = new URLSearchParams('kind=dream&since=yesterday&agent=&tool=calculator&limit=5&before=abc&token=secret');
    expect(filterFromQuery(query)).toEqual({ tool: 'calculator' });
  });

  it('writes the filters back in one order, so the same view has one address', () => {
    const href = filterHref({ tool: 'calculator', kind: 'tool_call', agent: 'demo' });
    expect(href).toBe('/corrections?agent=demo&kind=tool_call&tool=calculator');
    expect(filterFromQuery(new URL(href, 'http://x').searchParams)).toEqual({ agent: 'demo', kind: 'tool_call', tool: 'calculator' });
    expect(filterHref({})).toBe('/corrections');
  });

  it('sets and clears one filter without touching the others', () => {
    const filter = withFilter({ agent: 'demo' }, 'kind', 'thought');
    expect(filter).toEqual({ agent: 'demo', kind: 'thought' });
    expect(withFilter(filter, 'agent', '')).toEqual({ kind: 'thought' });
    expect(isFiltered({})).toBe(false);
    expect(isFiltered(filter)).toBe(true);
    expect(sameFilter({ kind: 'thought', agent: 'demo' }, { agent: 'demo', kind: 'thought' })).toBe(true);
    expect(sameFilter({ kind: 'thought' }, { kind: 'action' })).toBe(false);
  });

  it('turns the date fields into instants: since at the first day’s start, until after the whole last day', () => {
    const since = sinceOfDay('2026-11-03');
    const until = untilOfDay('2026-11-05');
    expect(new Date(since).getTime()).toBe(new Date(2026, 10, 3).getTime());
    expect(new Date(until).getTime()).toBe(new Date(2026, 10, 6).getTime());
    // The fields show back the days picked.
    expect(dayOfSince(since)).toBe('2026-11-03');
    expect(dayOfUntil(until)).toBe('2026-11-05');
    expect(sinceOfDay('')).toBe('');
    expect(untilOfDay('not a day')).toBe('');
    expect(dayOfSince(undefined)).toBe('');
  });

  it('names the same filters for the list and the export as for the page', () => {
    const filter = { kind: 'thought' as const, user: 'u_ada' };
    expect(correctionListPath(filter, { limit: 20, before: 'c1' })).toBe('/api/corrections?kind=thought&user=u_ada&limit=20&before=c1');
    expect(correctionListPath({})).toBe('/api/corrections');
    expect(correctionExportPath('preference', filter)).toBe('/api/corrections/export?format=preference&kind=thought&user=u_ada');
    expect(correctionExportPath('sft', {})).toBe('/api/corrections/export?format=sft');
  });
});
