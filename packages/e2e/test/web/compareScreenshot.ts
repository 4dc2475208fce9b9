import { PNG } from 'pngjs';
import pixelmatch from 'pixelmatch';

/** A rectangle of the page, in CSS pixels as Playwright's `boundingBox()` gives it. */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/**
 * How alike two screenshots must be (docs/decisions/web.md, "Screen pictures"): a pixel counts as
 * different when pixelmatch's perceptual colour distance exceeds 0.1 (its default; anti-aliased
 * edges are not counted), and a picture fails when more than 0.05 % of its pixels differ — about
 * 500 pixels at 1280×800, less than one small badge or button.
 */
export const PIXEL_THRESHOLD = 0.1;
export const MAX_DIFFERENT_RATIO = 0.0005;

export interface ScreenshotComparison {
  readonly sameSize: boolean;
  readonly differentPixels: number;
  readonly ratio: number;
  readonly matches: boolean;
  /** The changed pixels in red over a faded copy of the picture (empty when the sizes differ). */
  readonly diff: Buffer;
}

/**
 * Compares a fresh screenshot with the committed picture, leaving out `ignore`: the boxes that
 * hold what differs on every run by design (a temporary folder's name, a commit id, "6 s ago").
 * Both pictures get the same neutral fill there, so only the rest of the screen is compared.
 */
export function compareScreenshot(actual: Buffer, expected: Buffer, ignore: readonly Box[] = []): ScreenshotComparison {
  const a = PNG.sync.read(actual);
  const b = PNG.sync.read(expected);
  if (a.width !== b.width || a.height !== b.height) {
    return { sameSize: false, differentPixels: a.width * a.height, ratio: 1, matches: false, diff: Buffer.alloc(0) };
  }
  for (const box of ignore) {
    fill(a, box);
    fill(b, box);
  }
  const diff = new PNG({ width: a.width, height: a.height });
  const differentPixels = pixelmatch(a.data, b.data, diff.data, a.width, a.height, { threshold: PIXEL_THRESHOLD });
  const ratio = differentPixels / (a.width * a.height);
  return { sameSize: true, differentPixels, ratio, matches: ratio <= MAX_DIFFERENT_RATIO, diff: PNG.sync.write(diff) };
}

function fill(image: PNG, box: Box): void {
  const left = Math.max(0, Math.floor(box.x));
  const top = Math.max(0, Math.floor(box.y));
  const right = Math.min(image.width, Math.ceil(box.x + box.width));
  const bottom = Math.min(image.height, Math.ceil(box.y + box.height));
  for (let y = top; y < bottom; y += 1) {
    for (let x = left; x < right; x += 1) {
      const at = (y * image.width + x) * 4;
      image.data[at] = 128;
      image.data[at + 1] = 128;
      image.data[at + 2] = 128;
      image.data[at + 3] = 255;
    }
  }
}
