/**
 * What an inline file really is, read from its first bytes: an image's format and pixel size (PNG, JPEG, GIF,
 * WebP), or a PDF's page count. Used to bound what a provider bills for it: a string that merely looks like a
 * data URL is not an image unless its bytes are one.
 */

/** Bytes of base64 decoded to find an image's size (a JPEG's frame header may follow large EXIF or ICC blocks). */
const IMAGE_PREFIX_BYTES = 512 * 1024;

export interface ImageSize {
  format: 'png' | 'jpeg' | 'gif' | 'webp';
  /** 0 when the format is known but the size could not be read (the provider's largest image is assumed). */
  width: number;
  height: number;
}

const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;

/** The first bytes of base64 data (standard alphabet), or undefined when the text is not base64. */
export function decodeBase64Prefix(data: string, bytes: number): Buffer | undefined {
  const chars = Math.ceil(bytes / 3) * 4;
  const head = data.length > chars ? data.slice(0, chars) : data;
  if (!BASE64.test(head)) return undefined;
  return Buffer.from(head, 'base64');
}

/** Format and size of an image given as base64, or undefined when the bytes are not an image of a known format. */
export function imageSizeOfBase64(data: string): ImageSize | undefined {
  const bytes = decodeBase64Prefix(data, IMAGE_PREFIX_BYTES);
  return bytes ? imageSize(bytes) : undefined;
}

export function imageSize(b: Buffer): ImageSize | undefined {
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) {
    return { format: 'png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  if (b.length >= 10 && b.toString('latin1', 0, 4) === 'GIF8') return { format: 'gif', width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return { format: 'jpeg', ...jpegSize(b) };
  if (b.length >= 16 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return { format: 'webp', ...webpSize(b) };
  return undefined;
}

/** A JPEG's size from its start-of-frame segment (any SOFn but DHT, JPG and DAC). */
function jpegSize(b: Buffer): { width: number; height: number } {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return { width: 0, height: 0 };
    const marker = b[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = b.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: b.readUInt16BE(at + 5), width: b.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  return { width: 0, height: 0 };
}

function webpSize(b: Buffer): { width: number; height: number } {
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X' && b.length >= 30) return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === 'VP8L' && b.length >= 25) {
    const bits = b.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === 'VP8 ' && b.length >= 30) return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  return { width: 0, height: 0 };
}

/**
 * Pages of a PDF given as base64, or undefined when it is not a PDF or its pages cannot be counted (page objects
 * inside compressed object streams): the provider's largest document is assumed then.
 */
export function pdfPagesOfBase64(data: string): number | undefined {
  const bytes = decodeBase64Prefix(data, data.length);
  if (!bytes || bytes.toString('latin1', 0, 5) !== '%PDF-') return undefined;
  const text = bytes.toString('latin1');
  const pages = text.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
  let declared = 0;
  for (const match of text.matchAll(/\/Type\s*\/Pages\b[^>]*?\/Count\s+(\d+)|\/Count\s+(\d+)[^>]*?\/Type\s*\/Pages\b/g)) {
    declared = Math.max(declared, Number(match[1] ?? match[2]));
  }
  // The page tree's root counts every page; without it, page objects are counted unless some may sit unseen
  // inside compressed object streams.
  if (declared > 0) return Math.max(declared, pages);
  return pages > 0 && !text.includes('/ObjStm') ? pages : undefined;
}
