// Counters, gauges and histograms, written in the Prometheus text format. No dependencies; which
// metrics ringhook keeps is the app's (app/metrics.ts).

type Labels = Record<string, string>;

const labelText = (labels: Labels): string => {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  return `{${entries.map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`).join(',')}}`;
};

export class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = labelText(labels);
    const entry = this.values.get(key) ?? { labels, value: 0 };
    entry.value += by;
    this.values.set(key, entry);
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { labels, value } of this.values.values()) lines.push(`${this.name}${labelText(labels)} ${value}`);
    return lines.join('\n');
  }
}

export class Histogram {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {
    this.counts = buckets.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) this.counts[i]!++;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [i, b] of this.buckets.entries()) lines.push(`${this.name}_bucket{le="${b}"} ${this.counts[i]}`);
    lines.push(
      `${this.name}_bucket{le="+Inf"} ${this.count}`,
      `${this.name}_sum ${this.sum}`,
      `${this.name}_count ${this.count}`,
    );
    return lines.join('\n');
  }
}

/** A set of metrics rendered together: counters and histograms in the order made, then the gauges, then the process's memory. */
export class MetricsRegistry {
  private readonly series: Array<Counter | Histogram> = [];
  private readonly gauges: Array<{ name: string; help: string; read: () => number; labels: Labels }> = [];

  counter(name: string, help: string): Counter {
    const counter = new Counter(name, help);
    this.series.push(counter);
    return counter;
  }

  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    const histogram = new Histogram(name, help, buckets);
    this.series.push(histogram);
    return histogram;
  }

  gauge(name: string, help: string, read: () => number, labels: Labels = {}): void {
    this.gauges.push({ name, help, read, labels });
  }

  render(): string {
    const gauges = this.gauges.map(
      (g) => `# HELP ${g.name} ${g.help}\n# TYPE ${g.name} gauge\n${g.name}${labelText(g.labels)} ${g.read()}`,
    );
    const memory = `# HELP process_resident_memory_bytes Resident memory of the process.\n# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes ${process.memoryUsage.rss()}`;
    return `${[...this.series.map((s) => s.render()), ...gauges, memory].join('\n')}\n`;
  }
}
