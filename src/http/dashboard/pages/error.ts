// The dashboard's own error pages (the JSON error catalogue is for the webhook).
import { html } from '../html.js';
import { page, type Viewer } from '../layout.js';

export function errorPage(options: {
  status: number;
  title: string;
  message: string;
  viewer?: Viewer | undefined;
  action?: { href: string; label: string };
}): string {
  return page({
    title: options.title,
    viewer: options.viewer,
    body: html`<h1>${options.title}</h1>
<section class="card">
  <p>${options.message}</p>
  <p><a class="button secondary" href="${options.action?.href ?? '/'}">${options.action?.label ?? 'Back to the dashboard'}</a></p>
  <p class="hint">Error ${options.status}</p>
</section>`,
  });
}
