// The telephony variables' rules across variables: ARI's credentials, the call's bounds, each
// trunk's pairs and transport, flite's voices, the backup trunk, the RTP ports. Part of the one catalogue.
import type { z } from 'zod';
import { FLITE_LISTED_VOICES, type telephonyFields, trunkTransport } from './telephony.js';

type TelephonyEnv = z.output<z.ZodObject<typeof telephonyFields>>;

export function checkTelephonyVariables(env: TelephonyEnv, issue: (variable: string, message: string) => void): void {
  if (env.RINGHOOK_ARI_URL && !(env.RINGHOOK_ARI_USER && env.RINGHOOK_ARI_PASSWORD)) {
    issue(
      'RINGHOOK_ARI_USER',
      'RINGHOOK_ARI_URL points at an external Asterisk: set RINGHOOK_ARI_USER and RINGHOOK_ARI_PASSWORD to the ari.conf user too',
    );
  }
  // The bound counts from the originate: a call must be able to ring its whole time and then talk.
  if (env.RINGHOOK_MAX_CALL_SECONDS <= env.RINGHOOK_RING_TIMEOUT) {
    issue(
      'RINGHOOK_MAX_CALL_SECONDS',
      `RINGHOOK_MAX_CALL_SECONDS (${env.RINGHOOK_MAX_CALL_SECONDS}) must be longer than RINGHOOK_RING_TIMEOUT (${env.RINGHOOK_RING_TIMEOUT}): it bounds the whole call, ring included`,
    );
  }
  if (env.RINGHOOK_TELEPHONY === 'external' && !env.RINGHOOK_ARI_URL) {
    issue(
      'RINGHOOK_TELEPHONY',
      'RINGHOOK_TELEPHONY=external needs RINGHOOK_ARI_URL, RINGHOOK_ARI_USER and RINGHOOK_ARI_PASSWORD',
    );
  }
  for (const t of ['RINGHOOK_TRUNK', 'RINGHOOK_TRUNK2'] as const) {
    if (Boolean(env[`${t}_USERNAME`]) !== Boolean(env[`${t}_PASSWORD`])) {
      issue(`${t}_USERNAME`, `${t}_USERNAME and ${t}_PASSWORD go together`);
    }
    if (env[`${t}_REGISTER`] && !env[`${t}_USERNAME`]) {
      issue(`${t}_REGISTER`, `${t}_REGISTER=on needs ${t}_USERNAME and ${t}_PASSWORD`);
    }
    const uri = env[`${t}_URI`];
    if (uri?.startsWith('sips:') && env[`${t}_TRANSPORT`] !== undefined && env[`${t}_TRANSPORT`] !== 'tls') {
      issue(`${t}_TRANSPORT`, `${t}_URI is a sips: URI, which means TLS: leave ${t}_TRANSPORT unset or tls`);
    }
    if (uri && env[`${t}_MEDIA_ENCRYPTION`] === 'sdes' && trunkTransport(uri, env[`${t}_TRANSPORT`]) !== 'tls') {
      issue(
        `${t}_MEDIA_ENCRYPTION`,
        `${t}_MEDIA_ENCRYPTION=sdes sends the SRTP keys inside the SIP signalling: set ${t}_TRANSPORT=tls (or use dtls)`,
      );
    }
  }
  // flite speaks a voice it does not know in its default one, without a word.
  const voice = env.RINGHOOK_VOICE;
  if (
    env.RINGHOOK_TTS_ENGINE === 'flite' &&
    voice !== undefined &&
    !FLITE_LISTED_VOICES.includes(voice) &&
    !voice.endsWith('.flitevox')
  ) {
    issue(
      'RINGHOOK_VOICE',
      `RINGHOOK_VOICE must be one of flite's voices, ${FLITE_LISTED_VOICES.join(', ')}, or a .flitevox file (for espeak-ng's voices set RINGHOOK_TTS_ENGINE=espeak-ng)`,
    );
  }
  if (env.RINGHOOK_TRUNK2_URI && !env.RINGHOOK_TRUNK_URI) {
    issue('RINGHOOK_TRUNK2_URI', 'RINGHOOK_TRUNK2_URI is the backup of RINGHOOK_TRUNK_URI: set the first trunk too');
  }
  const [rtpStart = 0, rtpEnd = 0] = env.RINGHOOK_RTP_PORTS.split('-').map(Number);
  if (rtpStart < 1024 || rtpEnd > 65535 || rtpEnd <= rtpStart) {
    issue('RINGHOOK_RTP_PORTS', 'RINGHOOK_RTP_PORTS must be a range of ports above 1023, low-high, e.g. 10000-20000');
  } else if (env.RINGHOOK_MAX_CALLS !== undefined && env.RINGHOOK_MAX_CALLS * 2 > rtpEnd - rtpStart + 1) {
    issue(
      'RINGHOOK_MAX_CALLS',
      `RINGHOOK_MAX_CALLS needs two RTP ports a call: RINGHOOK_RTP_PORTS (${env.RINGHOOK_RTP_PORTS}) has room for ${Math.floor((rtpEnd - rtpStart + 1) / 2)}`,
    );
  }
}
