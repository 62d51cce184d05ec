// Who may read /metrics. It shows alert volume and the service's state, so without
// RINGHOOK_METRICS_TOKEN only this machine may (a Prometheus on the same host); anybody else needs
// the token. A request forwarded by a proxy that is not trusted is not taken for this machine's own,
// since its real client is unknown. Pure.

export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^::ffff:/i, '');
  return /^127(\.\d{1,3}){3}$/.test(bare) || bare === '::1';
}

export interface MetricsRequest {
  /** RINGHOOK_METRICS_TOKEN is set. */
  tokenSet: boolean;
  /** The request carries that token. */
  tokenGiven: boolean;
  /** The client's address: the peer, or what a trusted proxy said the client was. */
  client: string;
  /** An untrusted peer sent X-Forwarded-For, X-Real-IP or Forwarded: it is a proxy whose client is unknown. */
  forwardedByUntrusted: boolean;
}

export function metricsAllowed(request: MetricsRequest): boolean {
  if (request.tokenSet) return request.tokenGiven;
  return isLoopbackAddress(request.client) && !request.forwardedByUntrusted;
}
