// GSM 03.38 default alphabet (3GPP TS 23.038): detection, length in septets, and encoding to
// unpacked septets (one septet per octet, as SMPP carries data_coding 0). Pure, no I/O.

/** The basic table: the character at index i is septet i. 0x1B is the escape to the extension table. */
const BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';

/** The extension table: character → septet that follows the 0x1B escape. */
const EXTENSION: ReadonlyMap<string, number> = new Map([
  ['\f', 0x0a],
  ['^', 0x14],
  ['{', 0x28],
  ['}', 0x29],
  ['\\', 0x2f],
  ['[', 0x3c],
  ['~', 0x3d],
  [']', 0x3e],
  ['|', 0x40],
  ['€', 0x65],
]);

const ESC = 0x1b;
const BASIC_INDEX: ReadonlyMap<string, number> = new Map(
  Array.from(BASIC)
    .map((ch, i) => [ch, i] as const)
    .filter(([, i]) => i !== ESC),
);
const EXTENSION_DECODE: ReadonlyMap<number, string> = new Map(
  Array.from(EXTENSION, ([ch, septet]) => [septet, ch] as const),
);

/** gsm7CharLength of each character code under 128, looked up without a map (an SMS is counted often: #51). */
const ASCII_LENGTH = Uint8Array.from({ length: 128 }, (_, code) => {
  const ch = String.fromCharCode(code);
  return BASIC_INDEX.has(ch) ? 1 : EXTENSION.has(ch) ? 2 : 0;
});

/** Septets one character takes in GSM 7-bit (1 or 2), or 0 when it is not in the alphabet. */
export function gsm7CharLength(ch: string): 0 | 1 | 2 {
  const code = ch.charCodeAt(0);
  if (ch.length === 1 && code < 128) return ASCII_LENGTH[code] as 0 | 1 | 2;
  if (BASIC_INDEX.has(ch)) return 1;
  if (EXTENSION.has(ch)) return 2;
  return 0;
}

/** true when every character of the text is in the GSM 7-bit default alphabet (with its extension). */
export function isGsm7(text: string): boolean {
  for (const ch of text) if (gsm7CharLength(ch) === 0) return false;
  return true;
}

/** Length in septets; throws on a character outside the alphabet. */
export function gsm7Length(text: string): number {
  let n = 0;
  for (const ch of text) {
    const len = gsm7CharLength(ch);
    if (len === 0) throw new RangeError(`not a GSM 7-bit character: U+${ch.codePointAt(0)!.toString(16)}`);
    n += len;
  }
  return n;
}

/** Unpacked septets (one per byte); throws on a character outside the alphabet. */
export function encodeGsm7(text: string): Buffer {
  const out: number[] = [];
  for (const ch of text) {
    const basic = BASIC_INDEX.get(ch);
    if (basic !== undefined) {
      out.push(basic);
      continue;
    }
    const ext = EXTENSION.get(ch);
    if (ext === undefined) throw new RangeError(`not a GSM 7-bit character: U+${ch.codePointAt(0)!.toString(16)}`);
    out.push(ESC, ext);
  }
  return Buffer.from(out);
}

/** Decodes unpacked septets (the inverse of encodeGsm7); unknown escapes become a space. */
export function decodeGsm7(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]! & 0x7f;
    if (b === ESC) {
      const next = bytes[++i];
      s += next === undefined ? '' : (EXTENSION_DECODE.get(next & 0x7f) ?? ' ');
    } else {
      s += BASIC[b] ?? ' ';
    }
  }
  return s;
}

/** UCS-2 as SMS carries it: UTF-16 big-endian (characters beyond the BMP as surrogate pairs). */
export function encodeUcs2(text: string): Buffer {
  const le = Buffer.from(text, 'utf16le');
  return le.swap16();
}

export function decodeUcs2(bytes: Uint8Array): string {
  const copy = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  return copy.swap16().toString('utf16le');
}
