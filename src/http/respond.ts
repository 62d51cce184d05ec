// Building responses: every body the service sends is JSON (or a page, for the dashboard).
import type { ApiError } from './errors.js';

/** A JSON answer as plain data: h3 routes send it as a Response, the webhook's Node fast path writes it directly. */
export interface JsonAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): JsonAnswer {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}

export function errorAnswer(error: ApiError): JsonAnswer {
  return jsonAnswer(error.status, error.toBody(), error.headers);
}

export function toResponse(answer: JsonAnswer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return toResponse(jsonAnswer(status, body, headers));
}

export function errorResponse(error: ApiError): Response {
  return toResponse(errorAnswer(error));
}
