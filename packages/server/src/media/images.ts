import type { Sharp } from 'sharp';
import type { ImageFormat } from '../db/schema.ts';

/**
 * sharp, loaded on first use: libvips adds about 30 MB to the process, which an API instance
 * that never receives an image (IMAGE_WORKERS=0, reads only) need not carry.
 */
let sharpModule: Promise<typeof import('sharp')> | undefined;
async function loadSharp() {
  sharpModule ??= import('sharp');
  return (await sharpModule).default;
}

/** The widths generated, each only when not wider than the original (api-details 3). */
export const WIDTHS = [100, 300, 500, 750, 1000, 1500, 2500] as const;
/**
 * Widths of one image resized at the same time. JPEG and PNG encoding run on one thread each, so
 * one resize at a time leaves a core idle for much of an image: two bring a 4000x3000 JPEG to
 * READY in about 60% of the time on two cores (bench/README.md).
 */
const RESIZES_AT_ONCE = 2;
/** Larger images are refused at upload, and never decoded (api-details 5). */
export const MAX_PIXELS = 60_000_000;

/** A square PNG of one colour: the demo store's stand-in for product photographs. */
export async function swatchPicture(colour: string, size = 1200): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp({ create: { width: size, height: size, channels: 3, background: colour } })
    .png()
    .toBuffer();
}

/**
 * The picture's mean colour as `#rrggbb`: what a site fixture's export keeps of a picture
 * (testing/fixtures/), so that a swatch comes back the same and a photograph as its colour.
 */
export async function meanColour(source: string | Buffer): Promise<string> {
  const sharp = await loadSharp();
  const { channels } = await sharp(source).stats();
  const [r, g = r, b = r] = channels.length >= 3 ? channels : [channels[0]!];
  return `#${[r, g, b].map((c) => Math.round(c!.mean).toString(16).padStart(2, '0')).join('')}`;
}

export const CONTENT_TYPES: Record<ImageFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
};

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The format from the file's first bytes, never from its name or the part's content type. */
export function detectFormat(head: Buffer): ImageFormat | undefined {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (head.subarray(0, 8).equals(PNG)) return 'png';
  const ascii = head.subarray(0, 12).toString('latin1');
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return 'gif';
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'webp';
  return undefined;
}

/**
 * The size the image declares in its header, as displayed (EXIF orientations 5 to 8 swap width
 * and height). Reads the header only: a small file that declares enormous dimensions costs
 * nothing here and is refused by its caller.
 */
export async function declaredSize(
  file: string | Buffer,
): Promise<{ width: number; height: number } | undefined> {
  const sharp = await loadSharp();
  try {
    // No pixel limit for a header: the caller refuses what is too large, with a clear message.
    const { width, height, orientation } = await sharp(file, { limitInputPixels: false }).metadata();
    if (!width || !height) return undefined;
    return (orientation ?? 1) >= 5 ? { width: height, height: width } : { width, height };
  } catch {
    return undefined;
  }
}

/** A file that cannot be decoded: an expected outcome (status ERROR), not a failure to retry. */
export class UndecodableImage extends Error {}

/**
 * Formats whose decoders shrink on load (libjpeg's DCT scaling, libwebp's scaled decoding): each
 * width is read straight from the file at about its own size, so the small widths never decode
 * the whole image and no full-size copy of it is held in memory. PNG and GIF cannot, and are
 * decoded once for all their widths.
 */
const SHRINKS_ON_LOAD: ReadonlySet<ImageFormat> = new Set(['jpeg', 'webp']);

/**
 * Writes every width not wider than the original, in the original's format: first frame of an
 * animation, EXIF orientation applied, metadata dropped (sharp writes none unless asked).
 * sharp's `limitInputPixels` refuses a decompression bomb before decoding.
 */
export async function renderWidths(
  /** A local path, or the file's bytes. */
  file: string | Buffer,
  format: ImageFormat,
  write: (name: string, bytes: Buffer) => Promise<void>,
): Promise<{ width: number; height: number; widths: number[] }> {
  const sharp = await loadSharp();
  const input = { limitInputPixels: MAX_PIXELS };
  let source: () => Sharp;
  let size: { width: number; height: number };
  try {
    if (SHRINKS_ON_LOAD.has(format)) {
      const { autoOrient } = await sharp(file, input).metadata();
      size = autoOrient;
      source = () => sharp(file, input).rotate();
    } else {
      const { data, info } = await sharp(file, input).rotate().raw().toBuffer({ resolveWithObject: true });
      size = info;
      source = () =>
        sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
    }
  } catch (error) {
    throw new UndecodableImage((error as Error).message);
  }
  const widths = WIDTHS.filter((w) => w <= size.width);
  // Largest first: the long resizes start at once and the short ones fill the lanes at the end.
  const queue = [...widths].reverse();
  // Each file is flushed to disk while the next widths are being resized.
  const writes: Promise<void>[] = [];
  const resizeNext = async () => {
    try {
      for (let width = queue.shift(); width !== undefined; width = queue.shift()) {
        let bytes: Buffer;
        try {
          bytes = await source().resize({ width }).toFormat(format).toBuffer();
        } catch (error) {
          // A file whose header reads but whose pixels do not (truncated, corrupt).
          throw new UndecodableImage((error as Error).message);
        }
        const writing = write(`${width}w`, bytes);
        // Observed below, once every resize has ended; handled now, so that a write failing
        // before then is not an unhandled rejection (which would end the process).
        writing.catch(() => {});
        writes.push(writing);
      }
    } catch (error) {
      queue.length = 0; // the other resizes stop too
      throw error;
    }
  };
  // Settled rather than raced, so that nothing is still running when this returns or throws.
  const resized = await Promise.allSettled(Array.from({ length: RESIZES_AT_ONCE }, resizeNext));
  const failed = [...resized, ...(await Promise.allSettled(writes))].find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return { width: size.width, height: size.height, widths };
}
