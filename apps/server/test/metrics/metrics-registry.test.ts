import { describe, expect, it } from 'vitest';
import { MetricsRegistry } from '../../src/metrics/metrics-registry.js';

describe('MetricsRegistry: the Prometheus text format', () => {
  it('renders HELP, TYPE and the samples of each family, in registration order', () => {
    const registry = new MetricsRegistry();
    const opened = registry.counter('app_opened_total', 'Things opened.');
    registry.gauge('app_open', 'Things open now.', () => 2);
    registry.counterFrom('app_written_total', 'Written elsewhere.', () => 40);
    opened.inc();
    opened.inc(2);
    expect(registry.render()).toBe(
      [
        '# HELP app_opened_total Things opened.',
        '# TYPE app_opened_total counter',
        'app_opened_total 3',
        '# HELP app_open Things open now.',
        '# TYPE app_open gauge',
        'app_open 2',
        '# HELP app_written_total Written elsewhere.',
        '# TYPE app_written_total counter',
        'app_written_total 40',
        '',
      ].join('\n'),
    );
  });

  it('keeps labeled counts apart, sorted by label value, and escapes label values', () => {
    const registry = new MetricsRegistry();
    const errors = registry.labeledCounter('app_errors_total', 'Errors by code.', 'code');
    errors.inc('BAD_JSON');
    errors.inc('BAD_FRAME', 2);
    errors.inc('say "hi"\\\n');
    expect(registry.render().split('\n').slice(2, 5)).toEqual([
      'app_errors_total{code="BAD_FRAME"} 2',
      'app_errors_total{code="BAD_JSON"} 1',
      'app_errors_total{code="say \\"hi\\"\\\\\\n"} 1',
    ]);
    expect(errors.valueOf('BAD_FRAME')).toBe(2);
  });

  it('writes NaN and infinities as the format spells them', () => {
    const registry = new MetricsRegistry();
    registry.gauge('a', 'a', () => Number.NaN);
    registry.gauge('b', 'b', () => Number.POSITIVE_INFINITY);
    registry.gauge('c', 'c', () => Number.NEGATIVE_INFINITY);
    expect(registry.render()).toContain('a NaN\n');
    expect(registry.render()).toContain('b +Inf\n');
    expect(registry.render()).toContain('c -Inf\n');
  });

  it('leaves out a family whose reader throws, and still renders the others', () => {
    const registry = new MetricsRegistry();
    registry.gauge('broken', 'Reads a closed store.', () => {
      throw new Error('closed');
    });
    registry.gauge('fine', 'Fine.', () => 1);
    expect(registry.render()).toBe('# HELP fine Fine.\n# TYPE fine gauge\nfine 1\n');
  });

  it('refuses a name that is not a metric name, and a name registered twice', () => {
    const registry = new MetricsRegistry();
    expect(() => registry.gauge('1bad-name', 'x', () => 0)).toThrow(/not a Prometheus metric name/u);
    registry.gauge('twice', 'x', () => 0);
    expect(() => registry.counter('twice', 'x')).toThrow(/registered twice/u);
  });
});
