import { ValidationError } from '../shared/errors.ts';

export const MAX_ICON_BYTES = 200 * 1024;
/** Larger than any icon is shown; a small file declaring more is refused unread. */
const MAX_ICON_SIDE = 4096;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface ClientIcon {
  data: Buffer;
  type: 'image/png' | 'image/svg+xml';
}

/** A length of an SVG's root element, in user units or px; undefined for any other unit. */
function svgLength(value: string | undefined): number | undefined {
  const match = value === undefined ? null : /^\s*([0-9]*\.?[0-9]+)\s*(px)?\s*$/.exec(value);
  return match ? Number(match[1]) : undefined;
}

function svgSize(text: string): { width: number; height: number } | undefined {
  const root = /<svg\b([^>]*)>/i.exec(text)?.[1];
  if (root === undefined) return undefined;
  const attribute = (name: string) => new RegExp(`\\s${name}\\s*=\\s*(["'])(.*?)\\1`, 'i').exec(root)?.[2];
  const width = svgLength(attribute('width'));
  const height = svgLength(attribute('height'));
  if (width !== undefined && height !== undefined) return { width, height };
  const viewBox = attribute('viewBox')
    ?.trim()
    .split(/[\s,]+/)
    .map(Number);
  if (viewBox?.length === 4 && viewBox.every(Number.isFinite))
    return { width: viewBox[2]!, height: viewBox[3]! };
  return undefined;
}

/**
 * An app's icon (spec: .png or .svg, 200 KB, 1:1), checked from the file itself: the PNG
 * header's size, or the SVG root's width and height (or viewBox). An SVG is kept as sent: it
 * is only ever served with a policy that forbids its scripts (admin/developers/developer-apps.routes.ts).
 */
export function checkedIcon(fileName: string, data: Buffer): ClientIcon {
  const extension = /\.([a-z]+)$/i.exec(fileName)?.[1]?.toLowerCase();
  if (extension !== 'png' && extension !== 'svg') throw new ValidationError('icon: a .png or .svg file');
  if (data.length > MAX_ICON_BYTES) throw new ValidationError('icon: at most 200 KB');
  let size: { width: number; height: number } | undefined;
  let type: ClientIcon['type'];
  if (extension === 'png') {
    if (data.length < 24 || !data.subarray(0, 8).equals(PNG) || data.toString('latin1', 12, 16) !== 'IHDR') {
      throw new ValidationError('icon: not a PNG image');
    }
    size = { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
    type = 'image/png';
  } else {
    const text = data.toString('utf8');
    if (!/<svg\b/i.test(text)) throw new ValidationError('icon: not an SVG image');
    size = svgSize(text);
    if (!size) throw new ValidationError('icon: the SVG gives no width and height or viewBox');
    type = 'image/svg+xml';
  }
  if (size.width <= 0 || size.width > MAX_ICON_SIDE || size.height > MAX_ICON_SIDE) {
    throw new ValidationError(`icon: 1 to ${MAX_ICON_SIDE} pixels a side`);
  }
  if (size.width !== size.height) {
    throw new ValidationError(`icon: must be square, this one is ${size.width}x${size.height}`);
  }
  return { data, type };
}
