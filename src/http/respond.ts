// Building responses: every body the service sends is JSON (or a page, for the dashboard).
import type { ApiError } from '../errors.js';

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

export function errorResponse(error: ApiError): Response {
  return json(error.status, error.toBody(), error.headers);
}
