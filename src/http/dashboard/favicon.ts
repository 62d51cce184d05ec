// The dashboard's icon (/favicon.ico): a 16×16 ICO drawn here, a phone-blue disc with a white ring
// mark, so that it ships inside the single executable like the stylesheet. Pure.

const SIZE = 16;

/** RGBA of one pixel: the disc in the dashboard's accent colour, a white ring inside it, transparent around. */
function pixel(x: number, y: number): [number, number, number, number] {
  const d = Math.hypot(x + 0.5 - SIZE / 2, y + 0.5 - SIZE / 2);
  if (d > 7.5) return [0, 0, 0, 0];
  if (d > 3 && d < 4.6) return [255, 255, 255, 255];
  return [0x0b, 0x57, 0xd0, 255];
}

/** The ICO file: one 32-bit image (BITMAPINFOHEADER, BGRA rows bottom-up, then an all-zero AND mask). */
export function faviconIco(): Buffer {
  const pixels = SIZE * SIZE * 4;
  const mask = SIZE * 4; // one bit a pixel, rows padded to 4 bytes
  const image = 40 + pixels + mask;
  const out = Buffer.alloc(6 + 16 + image);
  out.writeUInt16LE(0, 0);
  out.writeUInt16LE(1, 2); // an icon
  out.writeUInt16LE(1, 4); // one image
  out.writeUInt8(SIZE, 6);
  out.writeUInt8(SIZE, 7);
  out.writeUInt16LE(1, 10); // planes
  out.writeUInt16LE(32, 12); // bits a pixel
  out.writeUInt32LE(image, 14);
  out.writeUInt32LE(22, 18);
  const bmp = 22;
  out.writeUInt32LE(40, bmp);
  out.writeInt32LE(SIZE, bmp + 4);
  out.writeInt32LE(SIZE * 2, bmp + 8); // the height counts the colour rows and the mask rows
  out.writeUInt16LE(1, bmp + 12);
  out.writeUInt16LE(32, bmp + 14);
  out.writeUInt32LE(pixels + mask, bmp + 20);
  let at = bmp + 40;
  for (let y = SIZE - 1; y >= 0; y--) {
    for (let x = 0; x < SIZE; x++) {
      const [r, g, b, a] = pixel(x, y);
      out.writeUInt8(b, at);
      out.writeUInt8(g, at + 1);
      out.writeUInt8(r, at + 2);
      out.writeUInt8(a, at + 3);
      at += 4;
    }
  }
  return out;
}
