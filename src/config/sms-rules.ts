// What is wrong with an SMS gateway's settings: checked when the configuration is loaded, and
// the placeholders the generic HTTP preset fills in when it sends.
import { isHttpUrl } from './rules.js';

export const KANNEL_URL_EXAMPLE = 'http://127.0.0.1:13013/cgi-bin/sendsms?username=ringhook&password=SECRET';

/** What is wrong with a Kannel sendsms URL, or null. */
export function kannelUrlProblem(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `must be Kannel's sendsms URL, e.g. ${KANNEL_URL_EXAMPLE}`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `must be an http:// or https:// URL, e.g. ${KANNEL_URL_EXAMPLE}`;
  if (!u.searchParams.get('username') || !u.searchParams.get('password')) {
    return `must carry the sendsms-user's username and password as query parameters, e.g. ${KANNEL_URL_EXAMPLE}`;
  }
  return null;
}

/** The placeholders a generic template may hold: {to} {from} {text} {reference}. */
export const PLACEHOLDER = /\{(to|from|text|reference)\}/g;

/** The template with its placeholders left empty (a URL to check, or to reach the gateway's host). */
export function withoutPlaceholders(template: string): string {
  return template.replace(PLACEHOLDER, '');
}

/** What is wrong with a generic gateway's templates, by part: the URL, or the body. */
export function genericTemplateProblems(t: {
  url: string;
  method: 'GET' | 'POST';
  body: string | undefined;
}): { part: 'url' | 'body'; message: string }[] {
  const problems: { part: 'url' | 'body'; message: string }[] = [];
  if (!isHttpUrl(withoutPlaceholders(t.url)))
    problems.push({
      part: 'url',
      message: 'must be an http(s) URL template, e.g. https://sms.example.com/send?to={to}',
    });
  if (t.method === 'GET' && t.body)
    problems.push({ part: 'body', message: 'is set but GET sends no body: unset one of them' });
  if (!t.url.includes('{text}') && !t.body?.includes('{text}')) {
    problems.push({
      part: 'body',
      message:
        'the generic preset needs {text} in the URL or the body, e.g. {"to":"{to}","from":"{from}","text":"{text}"}',
    });
  }
  return problems;
}
