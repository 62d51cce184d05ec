// Checks that bytes an outside speech engine wrote are a WAV file worth handing to sox, and makes
// its header tell the truth. Pure: bytes in, verdict out.

export interface WavFormat {
  /** 1 integer PCM, 3 IEEE float (WAVE_FORMAT_EXTENSIBLE is resolved to one of these). */
  encoding: 1 | 3;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
}

export type WavCheck =
  | { ok: true; format: WavFormat; dataOffset: number; dataBytes: number }
  | { ok: false; reason: string };

export const WAV_LIMITS = {
  minSampleRate: 8_000,
  maxSampleRate: 192_000,
  maxChannels: 8,
  /** Less audio than this is no speech at all. */
  minDurationMs: 10,
} as const;

const EXTENSIBLE = 0xfffe;

const fail = (reason: string): WavCheck => ({ ok: false, reason });

function readFormat(bytes: Buffer, at: number, size: number): WavFormat | string {
  if (size < 16) return `its fmt chunk is ${size} bytes, too short`;
  let encoding = bytes.readUInt16LE(at);
  // The sub-format GUID of WAVE_FORMAT_EXTENSIBLE starts with the plain format code.
  if (encoding === EXTENSIBLE && size >= 40) encoding = bytes.readUInt16LE(at + 24);
  const channels = bytes.readUInt16LE(at + 2);
  const sampleRate = bytes.readUInt32LE(at + 4);
  const bitsPerSample = bytes.readUInt16LE(at + 14);
  if (encoding !== 1 && encoding !== 3) return `its audio is not PCM (format ${encoding})`;
  if (channels < 1 || channels > WAV_LIMITS.maxChannels) return `it has ${channels} channels`;
  if (sampleRate < WAV_LIMITS.minSampleRate || sampleRate > WAV_LIMITS.maxSampleRate)
    return `its sample rate is ${sampleRate} Hz`;
  const sizes = encoding === 1 ? [8, 16, 24, 32] : [32, 64];
  if (!sizes.includes(bitsPerSample)) return `its samples are ${bitsPerSample} bits`;
  return { encoding, channels, sampleRate, bitsPerSample };
}

/** Walks the RIFF chunks up to the audio; the audio runs to the end of the bytes at most. */
export function checkWav(bytes: Buffer): WavCheck {
  if (bytes.length < 44 || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WAVE') {
    return fail('it is not a RIFF/WAVE file');
  }
  let format: WavFormat | undefined;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = bytes.toString('latin1', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      if (body + Math.min(size, 40) > bytes.length) return fail('its fmt chunk is cut short');
      const read = readFormat(bytes, body, size);
      if (typeof read === 'string') return fail(read);
      format = read;
    } else if (id === 'data') {
      if (!format) return fail('its audio comes before its format');
      const frame = (format.channels * format.bitsPerSample) / 8;
      // A writer on a pipe cannot go back to fill in the size, so the one declared may be a
      // placeholder (0 or near 4 GiB): what is there is what counts.
      const declared = size === 0 ? Infinity : size;
      const available = Math.min(declared, bytes.length - body);
      const dataBytes = available - (available % frame);
      const minBytes = Math.ceil((format.sampleRate * WAV_LIMITS.minDurationMs) / 1000) * frame;
      if (dataBytes < minBytes)
        return fail(`it holds ${dataBytes} bytes of audio, less than ${WAV_LIMITS.minDurationMs} ms`);
      return { ok: true, format, dataOffset: body, dataBytes };
    }
    at = body + size + (size % 2);
  }
  return fail(format ? 'it has no data chunk' : 'it has no fmt chunk');
}

/** A copy cut to the audio, with the RIFF and data sizes set to what is really there. */
export function withTrueSizes(bytes: Buffer, check: { dataOffset: number; dataBytes: number }): Buffer {
  const out = Buffer.from(bytes.subarray(0, check.dataOffset + check.dataBytes));
  out.writeUInt32LE(out.length - 8, 4);
  out.writeUInt32LE(check.dataBytes, check.dataOffset - 4);
  return out;
}

/** The loudest sample after normalizing: -1 dBFS, as `sox … norm -1` does. */
const PEAK = Math.round(32767 * 10 ** (-1 / 20));

/** Leading audio quieter than this (1 % of full scale) is silence: engines start with ~200 ms of it. */
const SILENCE = Math.round(32768 * 0.01);

/**
 * Of the leading silence, the last 20 ms (at 8 kHz) are kept, so the first sound's onset is whole.
 * (sox's `silence 1 0.02 1%`, for the other formats, cuts all of it once 20 ms of sound follow.)
 */
const KEPT_SILENCE_SAMPLES = 160;

/**
 * A WAV already in the telephone format (8 kHz, mono, 16-bit PCM) with its leading silence cut
 * (the answered phone hears the first word at once) and its loudness normalized, with a plain
 * 44-byte header; undefined for any other WAV (sox converts those).
 */
export function normalizedTelephoneWav(bytes: Buffer): Buffer | undefined {
  const check = checkWav(bytes);
  if (!check.ok) return undefined;
  const { encoding, channels, sampleRate, bitsPerSample } = check.format;
  if (encoding !== 1 || channels !== 1 || sampleRate !== 8000 || bitsPerSample !== 16) return undefined;
  const samples = check.dataBytes / 2;
  // Read through an aligned copy, four times cheaper than a Buffer read per sample (bench/NOTES.md, 8).
  // WAV is little-endian, as every machine ringhook runs on.
  const pcm = new Int16Array(samples);
  new Uint8Array(pcm.buffer).set(bytes.subarray(check.dataOffset, check.dataOffset + samples * 2));
  let first = 0;
  while (first < samples && Math.abs(pcm[first]!) < SILENCE) first++;
  const start = first === samples ? 0 : Math.max(0, first - KEPT_SILENCE_SAMPLES);
  let loudest = 0;
  for (let i = start; i < samples; i++) loudest = Math.max(loudest, Math.abs(pcm[i]!));
  const gain = loudest === 0 ? 1 : PEAK / loudest;
  const dataBytes = (samples - start) * 2;
  const out = Buffer.alloc(44 + dataBytes);
  telephoneWavHeader(dataBytes).copy(out);
  const normalized = new Int16Array(samples - start);
  for (let i = start; i < samples; i++) normalized[i - start] = Math.round(pcm[i]! * gain);
  out.set(new Uint8Array(normalized.buffer), 44);
  return out;
}

/**
 * Telephone-format WAVs (8 kHz, mono, 16-bit PCM) played one after the other, as one file with a
 * plain 44-byte header: what a call plays in a row; undefined when one is in another format.
 */
export function joinedTelephoneWav(parts: readonly Buffer[]): Buffer | undefined {
  const audio: Buffer[] = [];
  for (const part of parts) {
    const check = checkWav(part);
    if (!check.ok) return undefined;
    const { encoding, channels, sampleRate, bitsPerSample } = check.format;
    if (encoding !== 1 || channels !== 1 || sampleRate !== 8000 || bitsPerSample !== 16) return undefined;
    audio.push(part.subarray(check.dataOffset, check.dataOffset + check.dataBytes));
  }
  const dataBytes = audio.reduce((sum, a) => sum + a.length, 0);
  return Buffer.concat([telephoneWavHeader(dataBytes), ...audio]);
}

/** The plain 44-byte header of a telephone-format WAV (8 kHz, mono, 16-bit PCM) of `dataBytes` of audio. */
function telephoneWavHeader(dataBytes: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}
