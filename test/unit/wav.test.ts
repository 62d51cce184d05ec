// checkWav and withTrueSizes: what an outside engine's output must be before sox gets it; normalizedTelephoneWav: what needs no sox.
import { describe, expect, it } from 'vitest';
import { checkWav, normalizedTelephoneWav, withTrueSizes } from '../../src/core/speech/wav.js';

function chunk(id: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'latin1');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

function fmt({ encoding = 1, channels = 1, rate = 22_050, bits = 16 } = {}): Buffer {
  const b = Buffer.alloc(16);
  b.writeUInt16LE(encoding, 0);
  b.writeUInt16LE(channels, 2);
  b.writeUInt32LE(rate, 4);
  b.writeUInt32LE((rate * channels * bits) / 8, 8);
  b.writeUInt16LE((channels * bits) / 8, 12);
  b.writeUInt16LE(bits, 14);
  return b;
}

function wav(chunks: Buffer[], riffSize?: number): Buffer {
  const body = Buffer.concat([Buffer.from('WAVE', 'latin1'), ...chunks]);
  const head = Buffer.alloc(8);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(riffSize ?? body.length, 4);
  return Buffer.concat([head, body]);
}

const audio = (bytes: number) => Buffer.alloc(bytes, 1);

describe('checkWav', () => {
  it('accepts 16-bit PCM and finds the audio after other chunks', () => {
    const bytes = wav([chunk('fmt ', fmt()), chunk('LIST', Buffer.from('abc')), chunk('data', audio(4410))]);
    expect(checkWav(bytes)).toEqual({
      ok: true,
      format: { encoding: 1, channels: 1, sampleRate: 22_050, bitsPerSample: 16 },
      dataOffset: bytes.length - 4410,
      dataBytes: 4410,
    });
  });

  it('accepts float and WAVE_FORMAT_EXTENSIBLE PCM, stereo, 48 kHz', () => {
    expect(checkWav(wav([chunk('fmt ', fmt({ encoding: 3, bits: 32 })), chunk('data', audio(8820))])).ok).toBe(true);
    const extensible = Buffer.concat([fmt({ encoding: 0xfffe, channels: 2, rate: 48_000 }), Buffer.alloc(24)]);
    extensible.writeUInt16LE(22, 16);
    extensible.writeUInt16LE(1, 24); // sub-format GUID: PCM
    const check = checkWav(wav([chunk('fmt ', extensible), chunk('data', audio(48_000))]));
    expect(check).toMatchObject({ ok: true, format: { encoding: 1, channels: 2, sampleRate: 48_000 } });
  });

  it('takes the audio that is there when a writer on a pipe left a placeholder size', () => {
    for (const placeholder of [0, 0x7ffff000, 0xffffffff]) {
      const bytes = wav([chunk('fmt ', fmt()), chunk('data', audio(1001))]);
      bytes.writeUInt32LE(placeholder, bytes.length - 1001 - 1 - 4);
      bytes.writeUInt32LE(placeholder, 4);
      // 1001 bytes and a pad byte: whole 16-bit frames only.
      expect(checkWav(bytes)).toMatchObject({ ok: true, dataBytes: 1002 });
    }
  });

  it.each([
    ['garbage', Buffer.from('this is not audio at all, only some text that is long enough'), /not a RIFF\/WAVE/],
    ['too short', Buffer.from('RIFF'), /not a RIFF\/WAVE/],
    ['no fmt', wav([chunk('data', audio(1000)), chunk('LIST', audio(40))]), /audio comes before its format/],
    ['no data', wav([chunk('fmt ', fmt()), chunk('LIST', audio(40))]), /no data chunk/],
    ['compressed', wav([chunk('fmt ', fmt({ encoding: 85 })), chunk('data', audio(1000))]), /not PCM \(format 85\)/],
    ['no channels', wav([chunk('fmt ', fmt({ channels: 0 })), chunk('data', audio(1000))]), /0 channels/],
    ['too many channels', wav([chunk('fmt ', fmt({ channels: 9 })), chunk('data', audio(1000))]), /9 channels/],
    ['slow rate', wav([chunk('fmt ', fmt({ rate: 4000 })), chunk('data', audio(1000))]), /4000 Hz/],
    ['fast rate', wav([chunk('fmt ', fmt({ rate: 384_000 })), chunk('data', audio(10_000))]), /384000 Hz/],
    ['odd sample size', wav([chunk('fmt ', fmt({ bits: 12 })), chunk('data', audio(1000))]), /12 bits/],
    ['no audio', wav([chunk('fmt ', fmt()), chunk('data', audio(0))]), /0 bytes of audio/],
    ['a blip', wav([chunk('fmt ', fmt()), chunk('data', audio(400))]), /less than 10 ms/],
  ])('refuses %s', (_name, bytes, reason) => {
    const check = checkWav(bytes);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(reason);
  });
});

describe('withTrueSizes', () => {
  it('cuts to the audio and writes the real sizes', () => {
    const bytes = Buffer.concat([
      wav([chunk('fmt ', fmt()), chunk('data', audio(1000))]),
      Buffer.from('trailing junk!'),
    ]);
    bytes.writeUInt32LE(0x7ffff000, 4);
    const check = checkWav(bytes);
    if (!check.ok) throw new Error(check.reason);
    const fixed = withTrueSizes(bytes, check);
    expect(fixed.length).toBe(check.dataOffset + check.dataBytes);
    expect(fixed.readUInt32LE(4)).toBe(fixed.length - 8);
    expect(fixed.readUInt32LE(check.dataOffset - 4)).toBe(check.dataBytes);
    expect(checkWav(fixed)).toEqual(check);
  });
});

describe('normalizedTelephoneWav', () => {
  const wav = (rate: number, samples: number[]) => {
    const data = Buffer.alloc(samples.length * 2);
    samples.forEach((s, i) => data.writeInt16LE(s, i * 2));
    const header = Buffer.alloc(44);
    header.write('RIFF', 0, 'latin1');
    header.writeUInt32LE(36 + data.length, 4);
    header.write('WAVEfmt ', 8, 'latin1');
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(rate, 24);
    header.writeUInt32LE(rate * 2, 28);
    header.writeUInt16LE(2, 32);
    header.writeUInt16LE(16, 34);
    header.write('data', 36, 'latin1');
    header.writeUInt32LE(data.length, 40);
    return Buffer.concat([header, data]);
  };

  it('8 kHz mono 16-bit: the loudest sample brought to -1 dBFS, the shape kept', () => {
    const out = normalizedTelephoneWav(
      wav(
        8000,
        Array.from({ length: 400 }, (_, i) => (i % 4 === 0 ? 1000 : -500)),
      ),
    )!;
    expect(out.length).toBe(44 + 800);
    expect(checkWav(out)).toMatchObject({ ok: true, format: { channels: 1, sampleRate: 8000, bitsPerSample: 16 } });
    expect(out.readInt16LE(44)).toBe(29204); // 32767 × 10^(-1/20)
    expect(out.readInt16LE(46)).toBe(-14602);
  });

  it('leading silence is cut to 20 ms; the first sound and everything after it are kept', () => {
    const quiet = Array.from({ length: 2000 }, (_, i) => (i % 2 ? 100 : -100)); // 250 ms under 1 % of full scale
    const speech = Array.from({ length: 800 }, (_, i) => (i % 2 ? 8000 : -8000));
    const out = normalizedTelephoneWav(wav(8000, [...quiet, ...speech, ...quiet]))!;
    expect(out.length).toBe(44 + (160 + 800 + 2000) * 2);
    expect(Math.abs(out.readInt16LE(44 + 159 * 2))).toBeLessThan(400);
    expect(Math.abs(out.readInt16LE(44 + 160 * 2))).toBe(29204);
  });

  it('silence stays silence; any other rate or a broken file is left to sox', () => {
    expect(
      normalizedTelephoneWav(
        wav(
          8000,
          Array.from({ length: 400 }, () => 0),
        ),
      )?.readInt16LE(44),
    ).toBe(0);
    expect(
      normalizedTelephoneWav(
        wav(
          16000,
          Array.from({ length: 400 }, () => 100),
        ),
      ),
    ).toBeUndefined();
    expect(normalizedTelephoneWav(Buffer.from('not a wav'))).toBeUndefined();
  });
});
