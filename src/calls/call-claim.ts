// The claim of one call: its alerts must still be queued and the store must take each one's step
// to dialing (with several nodes sharing the store, only one of them can); the call's speech is
// planned on the way (core/speech/speech-plan), so that it is made while the phone rings. The call is for
// the account its alerts were queued with (read once, on their way in: waiting-alerts.ts).
import { type Account, receivesCalls } from '../core/account.js';
import { backupIntro } from '../core/calls/backup-person.js';
import { readAttempts } from '../core/calls/ring-again.js';
import { callSpeech } from '../core/speech/languages.js';
import { callReason } from '../core/reasons.js';
import type { CallForDialing } from '../core/records.js';
import { describeSpeechPlan } from '../core/speech/speech-plan.js';
import type { Language } from '../core/speech/language-types.js';
import type { SpeechAids } from '../core/speech/speakable.js';
import { callSpokenSteps, wereHeld } from '../core/speech/held-speech.js';
import { markedShortened, spokenAlertsNoted } from '../core/speech/spoken-alerts.js';
import { messagesWithAge } from '../core/calls/alert-age.js';
import { keptQuiet } from './quiet-hours.js';
import type { Endpoint } from '../pbx/index.js';
import type { SpeechPlanner } from '../speech/index.js';
import type { CallLedger } from './call-ledger.js';
import { type CallSession, type CallSessions, channelIdFor, newSession } from './call-session.js';
import type { DialerSettings } from './dialer-options.js';
import type { QueuedAlert } from './waiting-alerts.js';
import { nextTurn } from '../lib/sleep.js';

/** The alerts of one call read again in one turn at most. */
const READ_SLICE = 200;

/** A call taken for placing: its session, where it goes, and its speech's plan. */
export interface ClaimedCall {
  session: CallSession;
  endpoint: Endpoint;
  /** How long it is held for its speech before it is placed (core/speech/speech-plan). */
  holdMs: number;
  /** Takes back the speech counted as queued for it since it was planned. */
  unreserve: () => void;
  /** In how many ms its speech was forecast ready once asked for (the lateness margin aside); undefined: made already, or no forecast. */
  forecastMs: number | undefined;
  /** What it says: its alerts' messages as a trader would read them aloud. */
  text: string;
}

/** What the claim is given. */
export interface ClaimDeps {
  readonly settings: Pick<
    DialerSettings,
    'store' | 'now' | 'endpointFor' | 'tts' | 'japanese' | 'sendsSms' | 'logger' | 'events'
  >;
  readonly ledger: Pick<CallLedger, 'claim' | 'end' | 'endIfStale'>;
  readonly sessions: Pick<CallSessions, 'add'>;
  readonly speech: Pick<SpeechPlanner, 'plan' | 'follow'>;
  isStopping(): boolean;
}

/**
 * The claimed call's message, asked for now: made while the phone rings (or partly or wholly first,
 * when it cannot be made in time: core/speech/speech-plan). Returns what made it fail, once it has.
 */
export function makeMessage(
  deps: ClaimDeps,
  { session, unreserve, forecastMs, text }: ClaimedCall,
): () => Error | undefined {
  unreserve();
  session.messageMedia = deps.settings.tts.synthesize(text, session.speech.synthesis).then((s) => s.media);
  let failed: Error | undefined;
  session.messageMedia.catch((error: Error) => {
    failed = error;
  });
  deps.speech.follow(session.messageMedia, forecastMs);
  return () => failed;
}

/**
 * Takes the alerts for one call. Returns the call's session, registered before the originate so
 * that no event of the channel can be missed; undefined when there is nothing to place.
 */
export async function claimCall(deps: ClaimDeps, alerts: readonly QueuedAlert[]): Promise<ClaimedCall | undefined> {
  const { now } = deps.settings;
  // Each alert's row is read again, as it can change while the alert waits for its line: another
  // node sharing the store may have dialed it, and the regular look may have ended it. An alert put
  // back again and again (Asterisk refusing calls while it restarts, a long database lock) is not in
  // the queue the stale check looks at: it is looked at here, before its call.
  const calls = await stillQueued(deps, alerts, now());
  const call = calls[0];
  if (!call) return undefined;
  // The account is not read again: it came with the alert (the webhook or a test call read it as
  // they accepted it; one found queued in the store was read as it joined the queue).
  const account = alerts.find((a) => a.callId === call.callId)?.account;
  if (!account || deps.isStopping()) return undefined;
  if (await notCalledNow(deps, calls, account)) return undefined;
  // The backup person's number (core/calls/backup-person), or the account's.
  const to = call.dialTo ?? account.phone;
  const dialedAt = now();
  const endpoint = deps.settings.endpointFor(to);
  const own = callSpeech(account);
  // What the call will say (unless another node takes some of its alerts meanwhile): made ahead, perhaps.
  // Kanji are read by the dictionary, loaded on the first Japanese call (speech/japanese-reader.ts).
  const readJapanese = own.language.code === 'ja' ? await deps.settings.japanese?.load() : undefined;
  // An alert at the backup number is introduced as the account's ("Alert for Alice: …").
  const forBackup = call.kind === 'alert' && call.dialTo ? backupIntro(account) : undefined;
  const spoken = (alerts: readonly CallForDialing[]) =>
    spokenFor(introduced(alerts, forBackup), now(), own.language, { readJapanese });
  const says = async (alerts: readonly CallForDialing[]) => (await spoken(alerts)).text;
  const { text, notes } = await spoken(calls);
  const { speech, plan, toMake, forecastMs } = deps.speech.plan(own, text);
  // Counted as queued from now: the calls planned while this one's claim is written must see it,
  // or all of those planned in one turn would choose their voice on the same short queue.
  const unreserve = (toMake && deps.settings.tts.reserve?.(speech.synthesis)) || (() => {});
  // The timeline says how the speech was planned, and what of the message the voice could not read.
  const detail = [describeSpeechPlan(plan, speech.synthesis?.voice), ...notes].filter(Boolean).join('; ') || undefined;
  // Each attempt of an alert has a channel of its own (Asterisk's channel ids are unique).
  const attempt = (call.attempt ?? 1) > 1 ? `-a${call.attempt}` : '';
  const claimed = await deps.ledger
    .claim(calls, { phone: to, channelId: channelIdFor(call.callId, attempt), dialedAt, trunk: endpoint.trunk }, detail)
    .catch((error: unknown) => {
      unreserve();
      throw error;
    });
  if (claimed.length === 0) {
    unreserve();
    return undefined;
  }
  const session = newSession({
    calls: claimed,
    phone: to,
    requireConfirm: account.requireConfirm,
    dialedAt,
    attempt,
    speech,
    ringAgain: call.kind === 'alert' ? account : undefined,
  });
  deps.sessions.add(session);
  return {
    session,
    endpoint,
    holdMs: plan.holdMs,
    unreserve,
    forecastMs,
    text: claimed.length === calls.length ? text : await says(claimed),
  };
}

/**
 * Alerts not called now, each ended or held as it should be: the account suspended before they
 * joined the queue (no call of any kind, no SMS in its place); quiet hours (#41), decided here where
 * every alert passes before its call, whichever node or restart queued it; a backup number no longer
 * the account's, or not agreed.
 */
async function notCalledNow(deps: ClaimDeps, calls: readonly CallForDialing[], account: Account): Promise<boolean> {
  const { now } = deps.settings;
  if (!receivesCalls(account)) {
    const reason = callReason('account_suspended');
    for (const alert of calls)
      deps.ledger.end(alert, { state: 'failed', fields: { endedAt: now(), ...reason }, phone: null });
    return true;
  }
  if (await keptQuiet(deps, calls, account)) return true;
  if (calls[0]?.dialTo && !backupStillCalled(calls[0], account)) {
    endBackupGone(deps, calls, now());
    return true;
  }
  return false;
}

/** The alerts with the backup person's introduction before each message (none: as they are). */
function introduced(alerts: readonly CallForDialing[], intro: string | undefined): readonly CallForDialing[] {
  return intro ? alerts.map((a) => ({ ...a, message: `${intro} ${a.message}` })) : alerts;
}

/** A call to the backup number is placed only while it is the account's: agreed for an alert, still asked for a verification call. */
function backupStillCalled(call: CallForDialing, account: Account): boolean {
  if (account.backupPhone !== call.dialTo) return false;
  return call.kind === 'test' || account.backupPhoneStatus === 'verified';
}

/** The backup number changed, or was removed, while its call waited: none is placed; an alert ends as its last call did. */
function endBackupGone(deps: ClaimDeps, calls: readonly CallForDialing[], at: number): void {
  const reason = callReason('backup_gone');
  for (const alert of calls) {
    const state = readAttempts(alert.attempts).at(-1)?.outcome ?? 'failed';
    deps.ledger.end(alert, { state, fields: { endedAt: at, ...reason }, phone: null });
  }
}

/**
 * What a call says of its alerts. Held for quiet hours: newest first, each with how old it is, the
 * newest that fit the spoken-length cap (core/speech/held-speech.ts), made a held alert a turn (a night's
 * batch makes a few dozen speakable). Others: an alert 30 s late or more (a busy line, a second
 * attempt) says its age (core/calls/alert-age.ts).
 */
function spokenFor(alerts: readonly CallForDialing[], now: number, language: Language, aids: SpeechAids) {
  const marked = alerts.map(withShortenedMark);
  return wereHeld(marked)
    ? inTurns(callSpokenSteps(marked, now, language, aids))
    : Promise.resolve(spokenAlertsNoted(messagesWithAge(marked, now, language), language, aids));
}

/**
 * A message the webhook cut at its limit carries the mark its call says so by
 * (core/speech/speech-text/shortened.ts); the others are not copied (a held batch has 10,000).
 */
const withShortenedMark = (call: CallForDialing): CallForDialing =>
  call.messageTruncated ? { ...call, message: markedShortened(call.message, call.messageTruncated) } : call;

/** The alerts' rows that are still queued and fresh, read a slice a turn (SQLite reads in the event loop's thread: a quiet-hours batch may be 10,000). */
async function stillQueued(deps: ClaimDeps, alerts: readonly QueuedAlert[], now: number): Promise<CallForDialing[]> {
  const calls: CallForDialing[] = [];
  for (let i = 0; i < alerts.length; i += READ_SLICE) {
    // A batch beyond one slice starts in a turn of its own too: the turn that chose its call was long.
    if (i > 0 || alerts.length > READ_SLICE) await nextTurn();
    const slice = alerts.slice(i, i + READ_SLICE);
    const rows = await Promise.all(slice.map((a) => deps.settings.store.progress.get(a.callId)));
    // A missed call rung again (core/calls/ring-again) is never placed before it is due.
    for (const c of rows)
      if (c?.status === 'queued' && !((c.retryAt ?? 0) > now) && !deps.ledger.endIfStale(c, 'waiting')) calls.push(c);
  }
  return calls;
}

/** Runs steps to their end, a turn of the event loop between two. */
async function inTurns<T>(steps: Generator<void, T, void>): Promise<T> {
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await nextTurn();
  }
}
