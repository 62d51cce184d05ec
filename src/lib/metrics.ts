// Counters, gauges and histograms, written in the Prometheus text format. No dependencies.

type Labels = Record<string, string>;

const labelText = (labels: Labels): string => {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  return `{${entries.map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`).join(',')}}`;
};

class Counter {
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

class Histogram {
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

export class Metrics {
  readonly alerts = new Counter(
    'ringhook_alerts_total',
    'Webhook requests by result (accepted, invalid_payload, unauthorized, too_many_failures, suspended, limit_exceeded, rate_limited, unavailable, method_not_allowed).',
  );
  readonly calls = new Counter('ringhook_calls_total', 'Calls that reached a final state, by outcome.');
  readonly sms = new Counter('ringhook_sms_total', 'SMS backups by result (sent, failed, delivered, undelivered).');
  readonly webhookSeconds = new Histogram(
    'ringhook_webhook_duration_seconds',
    'Time to answer a webhook request.',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  );
  readonly firstSpeechSeconds = new Histogram(
    'ringhook_answer_to_first_speech_seconds',
    'Time from a call being answered to its message starting to play.',
    [0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 5],
  );
  private readonly gauges: Array<{ name: string; help: string; read: () => number; labels: Labels }> = [];

  gauge(name: string, help: string, read: () => number, labels: Labels = {}): void {
    this.gauges.push({ name, help, read, labels });
  }

  render(): string {
    const gauges = this.gauges.map(
      (g) => `# HELP ${g.name} ${g.help}\n# TYPE ${g.name} gauge\n${g.name}${labelText(g.labels)} ${g.read()}`,
    );
    const memory = `# HELP process_resident_memory_bytes Resident memory of the process.\n# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes ${process.memoryUsage.rss()}`;
    return `${[this.alerts.render(), this.calls.render(), this.sms.render(), this.webhookSeconds.render(), this.firstSpeechSeconds.render(), ...gauges, memory].join('\n')}\n`;
  }
}
