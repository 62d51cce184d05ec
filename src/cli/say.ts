// ringhook say TEXT: what a call would speak for this alert body, by the path a call takes (the
// body parsed as the webhook parses it, the account-like language, voice and intro, the speech
// normalizer, the call's script), and with --wav the audio, made by the engine the call would use.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { defineCommand } from 'citty';
import { commandMeta } from './commands.js';
import type { z } from 'zod';
import {
  callSpeech,
  chooseVoice,
  type CallSpeech,
  introSchema,
  JAPANESE_NOTE,
  languageSchema,
  voiceSchema,
} from '../core/speech/languages.js';
import { LANGUAGE_CODES, VOICE_IDS } from '../core/speech/language-types.js';
import { spokenCall, type SpokenCall } from '../core/speech/spoken-call.js';
import { loadConfig } from '../config/index.js';
import { UsageError, UserError } from '../lib/errors.js';
import { printJson } from './output.js';

function option<S extends z.ZodType>(schema: S, value: string, name: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new UsageError(`${name}: ${result.error.issues[0]?.message ?? 'invalid value'}`);
  return result.data;
}

/** The dictionary's warning, if it cannot be loaded, on stderr; its success is not news here. */
const stderrLogger = { info: () => {}, warn: (message: string) => process.stderr.write(`${message}\n`) };

async function readBody(text: string): Promise<Uint8Array> {
  if (text !== '-') return new TextEncoder().encode(text);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The folder the WAV goes into is there, checked before the audio is made: a refusal names it. */
async function checkFolder(file: string): Promise<void> {
  const folder = path.dirname(path.resolve(file));
  const found = await stat(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw new UserError(`--wav: cannot reach the folder ${folder}: ${error.code ?? error.message}`);
  });
  if (found === null)
    throw new UserError(`--wav: the folder ${folder} does not exist: make it first, or write the file elsewhere`);
  if (!found.isDirectory()) throw new UserError(`--wav: ${folder} is not a folder`);
}

/** Makes each phrase with the engine the call would use and writes them, one after the other, as one WAV. */
async function writeWav(file: string, phrases: SpokenCall, speech: CallSpeech): Promise<number> {
  await checkFolder(file);
  const config = loadConfig();
  // The speech is imported only to write audio: the text alone needs none of it.
  const { createTts, spokenAudio } = await import('../speech/index.js');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ringhook-say-'));
  const { tts: t } = config.telephony;
  const tts = createTts({
    cacheDir: dir,
    engine: t.engine,
    ...(t.voice && { voice: t.voice }),
    ...(t.command && { command: t.command }),
  });
  try {
    const { wav, durationMs } = await spokenAudio(tts, phrases, speech);
    await writeFile(file, wav).catch((error: NodeJS.ErrnoException) => {
      throw new UserError(`cannot write ${file}: ${error.code ?? error.message}`);
    });
    return durationMs;
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError(`could not make the audio: ${(error as Error).message}`);
  } finally {
    tts.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** What speaks for English with the default voice: the operator's command, or the configured engine and voice. */
function serverSpeech(): string {
  const { tts } = loadConfig().telephony;
  if (tts.command) return 'RINGHOOK_TTS_COMMAND';
  return `${tts.engine} ${tts.voice ?? (tts.engine === 'flite' ? 'slt' : 'en-us')}`;
}

export const sayCommand = defineCommand({
  meta: commandMeta('say'),
  args: {
    text: {
      type: 'positional',
      description: 'The alert body, as TradingView would send it ("-": read it from stdin)',
      required: true,
    },
    language: { type: 'string', description: `What the call speaks: ${LANGUAGE_CODES.join(', ')}`, default: 'en' },
    voice: {
      type: 'string',
      description: `The voice: ${VOICE_IDS.join(', ')} (the language's default when not given)`,
    },
    intro: {
      type: 'string',
      description: "The words before the message, at most 60 characters (the language's own when not given)",
    },
    wav: {
      type: 'string',
      description: 'Write the audio the call would play (intro, keys, message, prompt) to this WAV file',
    },
    json: { type: 'boolean', description: 'Print machine-readable JSON', default: false },
  },
  run: async ({ args }) => {
    const language = option(languageSchema, args.language, '--language');
    const voice = args.voice === undefined ? undefined : option(voiceSchema, args.voice, '--voice');
    const chosen = chooseVoice({ language: 'en', voice: 'slt' }, { language, voice });
    if (!chosen.ok) throw new UsageError(`--voice: ${chosen.error}`);
    const intro = args.intro === undefined ? null : option(introSchema, args.intro, '--intro');
    if (args.wav !== undefined && args.wav.trim() === '') throw new UsageError('--wav: give the file to write');

    const speech = callSpeech({ language: chosen.language, voice: chosen.voice, intro });
    // Kanji are read as a call reads them: by the dictionary, loaded here (about 1.5 s) for Japanese
    // only, and its module (kuromoji) imported only then.
    const setting = chosen.language === 'ja' ? loadConfig().telephony.tts.japaneseDictionary : undefined;
    if (setting && setting !== 'auto' && setting !== 'off')
      (await import('../speech/index.js')).checkDictionaryFolder(setting);
    const readJapanese = setting
      ? await (await import('../speech/index.js')).japaneseDictionary({ setting, logger: stderrLogger }).load()
      : undefined;
    const spoken = spokenCall(await readBody(args.text), speech, { readJapanese });
    if (!spoken.ok) throw new UserError(`the webhook would refuse this body (400 ${spoken.code}): ${spoken.error}`);
    const { phrases, alert } = spoken;
    const durationMs = args.wav === undefined ? undefined : await writeWav(args.wav, phrases, speech);

    if (args.json) {
      printJson({
        language: chosen.language,
        voice: chosen.voice,
        engine: speech.synthesis ? `${speech.synthesis.engine} ${speech.synthesis.voice}` : serverSpeech(),
        ...phrases,
        as_sent: alert.message,
        truncated: alert.truncated,
        ...(durationMs !== undefined && { wav: path.resolve(args.wav!), duration_ms: durationMs }),
      });
      return;
    }
    process.stdout.write(`${phrases.intro}\n${phrases.keys}\n${phrases.message}\n${phrases.prompt}\n`);
    if (alert.truncated) process.stderr.write('The message was cut to 500 characters, as the webhook cuts it.\n');
    if (chosen.language === 'ja') process.stderr.write(`${JAPANESE_NOTE}\n`);
    for (const note of spoken.notes) process.stderr.write(`Note: ${note}\n`);
    if (durationMs !== undefined) process.stderr.write(`Wrote ${args.wav} (${(durationMs / 1000).toFixed(1)} s).\n`);
  },
});
