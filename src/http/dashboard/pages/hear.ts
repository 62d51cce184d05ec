// The overview's "Hear it": a box for the owner's own alert message (the sample alert at first),
// the player, and beside it the exact text a call would speak. Works as a plain form post; the
// script only keeps the page in place and plays the result.
import type { SpokenCall } from '../../../core/speech/spoken-call.js';
import { TEST_CALL_LIMITS } from '../../../core/webhook/limits.js';
import { MAX_MESSAGE_CODE_POINTS } from '../../../core/webhook/payload.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField } from '../layout.js';
import type { Account } from '../../../core/account.js';
import { JAPANESE_NOTE } from '../../../core/speech/languages.js';
import type { LanguageCode } from '../../../core/speech/language-types.js';
import { SAMPLE_ALERT } from '../../../core/speech/spoken-alerts.js';
import { hearText, MAX_HEAR_BOX_CHARS } from '../voice-samples.js';

/** What the section shows: the box's text, and the speech made from it or why there is none. */
export interface HearView {
  /** The box's text, as typed. */
  body: string;
  /** The spoken phrases and the player's address, when they could be made. */
  spoken?: { phrases: SpokenCall; src: string } | undefined;
  error?: string | undefined;
}

/** The player's address for an alert message (the default sample when absent); `v` changes with the account's voice. */
export function sampleSrc(message: string | undefined, version: number): string {
  const query = new URLSearchParams(message === undefined ? {} : { message });
  query.set('v', String(version));
  return `/dashboard/voice-sample.wav?${query}`;
}

/** The section as first shown: the sample alert in the box, its speech beside the player. */
export function defaultHearView(account: Pick<Account, 'language' | 'voice' | 'intro' | 'updatedAt'>): HearView {
  const text = hearText(SAMPLE_ALERT, account);
  return {
    body: SAMPLE_ALERT,
    spoken: text.ok ? { phrases: text.phrases, src: sampleSrc(undefined, account.updatedAt) } : undefined,
  };
}

export function hearSection(csrfToken: string, available: boolean, view: HearView, language: LanguageCode): SafeHtml {
  if (!available) {
    return html`<section class="card" id="hear"><h3>Hear it</h3>
  <p class="hint">The sample cannot be played: this server places no calls, so it has no speech engine running.</p></section>`;
  }
  const error =
    view.error === undefined ? '' : html`<p class="notice error" role="alert" id="hear-error">${view.error}</p>`;
  const spoken = view.spoken
    ? html`<audio id="voice-sample" controls preload="none" src="${view.spoken.src}">Your browser cannot play the sample.</audio>
  <blockquote class="spoken" id="hear-spoken" title="What the call says.">${view.spoken.phrases.intro} ${view.spoken.phrases.keys} <strong>${view.spoken.phrases.message}</strong> ${view.spoken.phrases.prompt}</blockquote>`
    : '';
  return html`<section class="card" id="hear" aria-labelledby="hear-title">
  <h3 id="hear-title">Hear it</h3>
  <form method="post" action="/dashboard/hear#hear" data-hear>
    ${csrfField(csrfToken)}
    <label for="hear-message">Message to hear (or the JSON your alert sends), as your calls say it</label>
    <div class="row"><textarea id="hear-message" name="message" rows="1" maxlength="${MAX_HEAR_BOX_CHARS}" aria-describedby="hear-message-hint">${view.body}</textarea>
    <button type="submit" class="secondary">Hear it</button></div>
    <p class="hint" id="hear-message-hint">At most ${MAX_MESSAGE_CODE_POINTS} characters; ${TEST_CALL_LIMITS.perMinute} new messages a minute, ${TEST_CALL_LIMITS.perHour} an hour (hearing one again is free).</p>
    ${language === 'ja' ? html`<p class="hint" id="hear-japanese">${JAPANESE_NOTE}</p>` : ''}
  </form>
  <div id="hear-result" aria-live="polite"${view.spoken ? html` data-ready` : ''}>${error}${spoken}</div>
</section>`;
}
