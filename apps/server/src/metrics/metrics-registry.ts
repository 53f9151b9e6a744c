/**
 * A small registry rendered in the Prometheus text exposition format (version 0.0.4), enough for
 * the server's own counters and gauges without a dependency. Names are the product's, fixed in
 * code; label values are escaped as the format requires.
 */

type MetricType = 'counter' | 'gauge';

interface Sample {
  labels?: Readonly<Record<string, string>>;
  value: number;
}

interface Family {
  name: string;
  help: string;
  type: MetricType;
  samples(): Sample[];
}

/** A count that only goes up. */
export class Counter {
  #value = 0;

  inc(by = 1): void {
    this.#value += by;
  }

  get value(): number {
    return this.#value;
  }
}

/** Counts kept apart by the value of one label (e.g. an error code). */
export class LabeledCounter {
  readonly #values = new Map<string, number>();

  constructor(readonly label: string) {}

  inc(labelValue: string, by = 1): void {
    this.#values.set(labelValue, (this.#values.get(labelValue) ?? 0) + by);
  }

  valueOf(labelValue: string): number {
    return this.#values.get(labelValue) ?? 0;
  }

  entries(): Array<[string, number]> {
    return [...this.#values.entries()].sort(([a], [b]) => a.localeCompare(b));
  }
}

const escapeLabel = (value: string) => value.replace(/\\/gu, '\\\\').replace(/\n/gu, '\\n').replace(/"/gu, '\\"');
const escapeHelp = (value: string) => value.replace(/\\/gu, '\\\\').replace(/\n/gu, '\\n');

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function formatSample(name: string, sample: Sample): string {
  const labels = Object.entries(sample.labels ?? {});
  const suffix = labels.length === 0 ? '' : `{${labels.map(([key, value]) => `${key}="${escapeLabel(value)}"`).join(',')}}`;
  return `${name}${suffix} ${formatValue(sample.value)}`;
}

export class MetricsRegistry {
  readonly #families: Family[] = [];

  counter(name: string, help: string): Counter {
    const counter = new Counter();
    this.#add({ name, help, type: 'counter', samples: () => [{ value: counter.value }] });
    return counter;
  }

  labeledCounter(name: string, help: string, label: string): LabeledCounter {
    const counter = new LabeledCounter(label);
    this.#add({ name, help, type: 'counter', samples: () => counter.entries().map(([value, count]) => ({ labels: { [label]: value }, value: count })) });
    return counter;
  }

  /** A count kept elsewhere (it only grows), read when the metrics are rendered. */
  counterFrom(name: string, help: string, read: () => number): void {
    this.#add({ name, help, type: 'counter', samples: () => [{ value: read() }] });
  }

  /** A value read when the metrics are rendered. */
  gauge(name: string, help: string, read: () => number): void {
    this.#add({ name, help, type: 'gauge', samples: () => [{ value: read() }] });
  }

  /** Every family: `# HELP`, `# TYPE`, then its samples. A family whose reader throws is left out, not the whole page. */
  render(): string {
    const lines: string[] = [];
    for (const family of this.#families) {
      let samples: Sample[];
      try {
        samples = family.samples();
      } catch {
        continue;
      }
      lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
      for (const sample of samples) lines.push(formatSample(family.name, sample));
    }
    return `${lines.join('\n')}\n`;
  }

  #add(family: Family): void {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/u.test(family.name)) throw new Error(`"${family.name}" is not a Prometheus metric name.`);
    if (this.#families.some((known) => known.name === family.name)) throw new Error(`Metric ${family.name} is registered twice.`);
    this.#families.push(family);
  }
}
