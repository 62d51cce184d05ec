// "Hear it": the owner's alert message as a call would speak it. The form post answers with the
// overview (the spoken text beside the player, or why not); the player asks for the WAV by the
// message, which the speech cache then serves without making it again.
import type { H3 } from 'h3';
import { z } from 'zod';
import { apiRoute, formRoute, type DashboardContext } from '../context.js';
import { overviewModel } from '../models.js';
import { hearText, VoiceSamples, type HearText, type SampleResult } from '../voice-samples.js';
import { sampleSrc, type HearView } from '../pages/hear.js';
import { overviewPage } from '../pages/overview.js';
import { htmlResponse, plain, SECURITY_HEADERS } from '../respond.js';
import { SAMPLE_ALERT } from '../../../core/speech/spoken-alerts.js';
import type { Account } from '../../../core/account.js';
import type { SpeechAids } from '../../../core/speech/speakable.js';

/** The player's message travels as the alert's message only: a JSON body makes it exact (and checked alike). */
const asBody = (message: string) => JSON.stringify({ message });

function refusal(result: Extract<SampleResult, { ok: false }>): Record<string, string> {
  return result.status === 429 ? { 'retry-after': String(result.retryAfterSeconds) } : {};
}

/** Kanji are read as the account's calls read them: by the dictionary, for a Japanese account. */
async function aidsFor(ctx: DashboardContext, account: Pick<Account, 'language'>): Promise<SpeechAids> {
  return account.language === 'ja' ? { readJapanese: await ctx.deps.readJapanese?.() } : {};
}

export function mountHearRoutes(app: H3, ctx: DashboardContext): void {
  const make = ctx.deps.speechSample;
  const samples = make && new VoiceSamples(make, ctx.deps.now, ctx.deps.logger);

  app.post(
    '/dashboard/hear',
    formRoute(ctx, z.object({ message: z.string() }), async (_event, { viewer, account }, data) => {
      const model = await overviewModel(ctx, viewer, account, false);
      const page = (status: number, hear: HearView, headers: Record<string, string> = {}) =>
        htmlResponse(status, overviewPage({ ...model, hear }), { headers });
      const text: HearText = hearText(data.message, account, await aidsFor(ctx, account));
      if (!text.ok) return page(400, { body: data.message, error: text.error });
      if (!samples) return page(404, { body: data.message });
      const made = await samples.sample(account.userId, text);
      if (!made.ok) return page(made.status, { body: data.message, error: made.error }, refusal(made));
      const src = sampleSrc(text.message === SAMPLE_ALERT ? undefined : text.message, account.updatedAt);
      return page(200, { body: data.message, spoken: { phrases: text.phrases, src } });
    }),
  );

  // The WAV of an alert message (the sample alert without one): intro, keys, message and prompt in the account's voice.
  app.get(
    '/dashboard/voice-sample.wav',
    apiRoute(ctx, async (event, { account }) => {
      if (!samples) return plain(404, 'No sample: telephony is not configured on this server.');
      const message = event.url.searchParams.get('message');
      const text = hearText(message === null ? SAMPLE_ALERT : asBody(message), account, await aidsFor(ctx, account));
      if (!text.ok) return plain(400, text.error);
      const made = await samples.sample(account.userId, text);
      if (!made.ok) return plain(made.status, made.error, refusal(made));
      const { wav } = made.audio;
      return new Response(new Uint8Array(wav), {
        status: 200,
        headers: {
          ...SECURITY_HEADERS,
          'content-type': 'audio/wav',
          'content-length': String(wav.length),
          'cache-control': 'private, no-store',
        },
      });
    }),
  );
}
