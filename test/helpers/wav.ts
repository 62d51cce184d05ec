// A 16-bit PCM WAV file's samples, read through the same RIFF walk the service applies to speech.
import fs from 'node:fs';
import { checkWav } from '../../src/core/speech/wav.js';

export function readPcm16(file: string): { samples: Int16Array; sampleRate: number } {
  const wav = fs.readFileSync(file);
  const check = checkWav(wav);
  if (!check.ok) throw new Error(`${file}: ${check.reason}`);
  if (check.format.encoding !== 1 || check.format.bitsPerSample !== 16 || check.format.channels !== 1)
    throw new Error(`${file}: not 16-bit mono PCM`);
  const data = wav.subarray(check.dataOffset, check.dataOffset + check.dataBytes);
  return {
    samples: new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length)),
    sampleRate: check.format.sampleRate,
  };
}
