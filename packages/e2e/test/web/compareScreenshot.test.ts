import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { compareScreenshot, MAX_DIFFERENT_RATIO } from './compareScreenshot.js';

/** A 200×100 white picture with the given black rectangles. */
function picture(blocks: { x: number; y: number; width: number; height: number }[] = [], width = 200, height = 100): Buffer {
  const image = new PNG({ width, height });
  image.data.fill(255);
  for (const block of blocks) {
    for (let y = block.y; y < block.y + block.height; y += 1) {
      for (let x = block.x; x < block.x + block.width; x += 1) image.data.fill(0, (y * width + x) * 4, (y * width + x) * 4 + 3);
    }
  }
  return PNG.sync.write(image);
}

describe('compareScreenshot', () => {
  it('finds the same picture alike and a missing button different', () => {
    const button = { x: 20, y: 20, width: 30, height: 10 };
    expect(compareScreenshot(picture([button]), picture([button]))).toMatchObject({ sameSize: true, differentPixels: 0, matches: true });
    const changed = compareScreenshot(picture(), picture([button]));
    expect(changed.differentPixels).toBeGreaterThan(MAX_DIFFERENT_RATIO * 200 * 100);
    expect(changed.matches).toBe(false);
    expect(changed.diff.length).toBeGreaterThan(0);
  });

  it('leaves the ignored boxes out, and nothing else', () => {
    const runName = { x: 100, y: 40, width: 40, height: 12 };
    expect(compareScreenshot(picture([runName]), picture(), [runName]).matches).toBe(true);
    expect(compareScreenshot(picture([runName]), picture(), [{ ...runName, width: 20 }]).matches).toBe(false);
  });

  it('never finds pictures of different sizes alike', () => {
    expect(compareScreenshot(picture([], 200, 100), picture([], 200, 120))).toMatchObject({ sameSize: false, matches: false });
  });
});
