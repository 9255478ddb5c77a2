/** Image checks the providers make on inline images: the data must be an image, of the type it claims. */
const MAGIC: Array<[string, (b: Buffer) => boolean]> = [
  ['image/png', (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['image/jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['image/gif', (b) => b.subarray(0, 4).toString('latin1') === 'GIF8'],
  ['image/webp', (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP'],
];

/** The actual format of base64 image data (by its magic bytes), or undefined when it is not base64 of a known image. */
export function sniffImage(data: string): string | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(data) || data.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(data, 'base64');
  return MAGIC.find(([, test]) => test(bytes))?.[0];
}
