// A form of the overview that was not saved: which one, why, and what the owner typed, so the page
// shows the error in that form's card with the typed values kept and the other cards as saved.
import { html, type SafeHtml } from './html.js';

export type OverviewForm = 'quiet' | 'controls' | 'voice' | 'callback' | 'decision';

export interface FailedForm {
  form: OverviewForm;
  /** The one-line reason, as a sentence's end ("the time zone must be an IANA name, …"). */
  reason: string;
  /** The fields as posted. */
  values: Readonly<Record<string, string>>;
}

/** A typed value of the failed form, or the saved one when this card's form is not the one that failed. */
export function shown(failed: FailedForm | undefined, field: string, saved: string): string {
  return failed ? (failed.values[field] ?? '') : saved;
}

/** The error in the failed form's card, said where the owner looks. */
export function formErrorNotice(id: string, failed: FailedForm | undefined): SafeHtml {
  if (!failed) return html``;
  return html`<p class="notice error" role="alert" id="${id}-error">The form was not valid: ${failed.reason}. Nothing was saved; what you typed is kept below.</p>`;
}
