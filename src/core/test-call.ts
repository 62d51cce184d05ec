// What asking for a test call gives, for the dashboard and the CLI alike. Pure.

export const TEST_CALL_MESSAGE = 'This is a test call from ringhook. Your alerts will sound like this.';

export type TestCallResult =
  | { accepted: true; callId: string; receivedAt: number }
  | { accepted: false; reason: 'rate_limited'; retryAfterSeconds: number }
  | { accepted: false; reason: 'suspended' };
