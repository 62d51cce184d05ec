import { describe, expect, it } from 'vitest';
import { credentialsFromPath, takesFastPath } from '../../src/core/webhook/webhook-path.js';

const userId = '0123456789abcdef0123456789abcdef';
const apiKey = 'rk_AbC-_0123456789abcdefghijABCDEFGHIJ0123456';

describe('credentialsFromPath', () => {
  it('reads user_id and api_key, with or without a trailing slash, percent-decoded', () => {
    expect(credentialsFromPath(`/webhook/${userId}/${apiKey}`)).toEqual({ userId, apiKey });
    expect(credentialsFromPath(`/webhook/${userId}/${apiKey}/`)).toEqual({ userId, apiKey });
    expect(credentialsFromPath(`/webhook/${userId}/rk%5Fx`)).toEqual({ userId, apiKey: 'rk_x' });
  });

  it('refuses other shapes and malformed escapes', () => {
    for (const p of [
      '/webhook',
      `/webhook/${userId}`,
      `/webhook/${userId}/${apiKey}/extra`,
      `/webhook/${userId}/%E0%A4%A`,
    ]) {
      expect(credentialsFromPath(p), p).toBeNull();
    }
  });
});

describe('takesFastPath', () => {
  it('takes a POST to a plain webhook URL', () => {
    expect(takesFastPath('POST', `/webhook/${userId}/${apiKey}`)).toBe(true);
    expect(takesFastPath('POST', `/webhook/${userId}/${apiKey}/`)).toBe(true);
    expect(takesFastPath('POST', '/webhook/x/y')).toBe(true);
  });

  it('leaves to h3 other methods, escapes, dots, queries, other shapes and other paths', () => {
    expect(takesFastPath('GET', `/webhook/${userId}/${apiKey}`)).toBe(false);
    expect(takesFastPath('post', `/webhook/${userId}/${apiKey}`)).toBe(false);
    expect(takesFastPath(undefined, `/webhook/${userId}/${apiKey}`)).toBe(false);
    expect(takesFastPath('POST', undefined)).toBe(false);
    for (const target of [
      `/webhook/${userId}/rk%5Fx`,
      `/webhook/${userId}/${apiKey}?x=1`,
      `/webhook/${userId}/${apiKey}#f`,
      `/webhook/../webhook/${userId}/${apiKey}`,
      `/webhook/${userId}/./`,
      `/webhook/${userId}`,
      `/webhook/${userId}/${apiKey}/extra`,
      `/webhook//${apiKey}`,
      `//webhook/${userId}/${apiKey}`,
      `/Webhook/${userId}/${apiKey}`,
      `/webhook/${userId}\\${apiKey}`,
      `https://host/webhook/${userId}/${apiKey}`,
      '/login',
    ]) {
      expect(takesFastPath('POST', target), target).toBe(false);
    }
  });
});
