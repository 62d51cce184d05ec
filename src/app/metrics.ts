// The metrics ringhook keeps (GET /metrics): alerts by result, calls by outcome, SMS by result, the
// webhook's answer time and the time from answer to first speech; serve adds its gauges at start.
import { MetricsRegistry } from '../lib/metrics.js';

export class Metrics extends MetricsRegistry {
  readonly alerts = this.counter(
    'ringhook_alerts_total',
    'Webhook requests by result (accepted, invalid_payload, unauthorized, too_many_failures, suspended, limit_exceeded, rate_limited, unavailable, method_not_allowed).',
  );
  readonly calls = this.counter('ringhook_calls_total', 'Calls that reached a final state, by outcome.');
  readonly sms = this.counter('ringhook_sms_total', 'SMS backups by result (sent, failed, delivered, undelivered).');
  readonly webhookSeconds = this.histogram(
    'ringhook_webhook_duration_seconds',
    'Time to answer a webhook request.',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  );
  readonly firstSpeechSeconds = this.histogram(
    'ringhook_answer_to_first_speech_seconds',
    'Time from a call being answered to its message starting to play.',
    [0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 5],
  );
}
