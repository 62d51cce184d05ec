// Telephone WAVs joined into one, as ringhook say --wav writes the phrases a call plays in a row.
import { describe, expect, it } from 'vitest';
import { checkWav, joinedTelephoneWav } from '../../src/core/speech/wav.js';

function wav(samples: number[], sampleRate = 8000): Buffer {
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => data.writeInt16LE(s, i * 2));
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

describe('joinedTelephoneWav', () => {
  it('plays the parts in order, in one telephone WAV with true sizes', () => {
    const a = Array.from({ length: 800 }, (_, i) => i);
    const b = Array.from({ length: 400 }, (_, i) => -i);
    const joined = joinedTelephoneWav([wav(a), wav(b)])!;
    const check = checkWav(joined);
    expect(check.ok && check.format).toEqual({ encoding: 1, channels: 1, sampleRate: 8000, bitsPerSample: 16 });
    expect(check.ok && check.dataBytes).toBe((800 + 400) * 2);
    expect(joined.readInt16LE(44 + 799 * 2)).toBe(799);
    expect(joined.readInt16LE(44 + 801 * 2)).toBe(-1);
  });

  it('refuses a part in another format or not a WAV', () => {
    expect(joinedTelephoneWav([wav([1, 2, 3]), wav(Array(100).fill(0), 16_000)])).toBeUndefined();
    expect(joinedTelephoneWav([Buffer.from('not a wav')])).toBeUndefined();
  });
});
