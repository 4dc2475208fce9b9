import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium: playwright-core never downloads a browser (`scripts/ensure-chromium.sh` installs it). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Flags for a quiet, deterministic headless Chromium in CI: no sandbox (containers run as root), no
 * GPU, and nothing that phones home or updates itself while a test runs.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/**
 * A fresh Chromium with its own profile in `userDataDir` (a test's temporary folder), so nothing
 * (storage, cache, permissions) carries over from another test. Close it when the test ends.
 */
export async function launchChromium(userDataDir: string, viewport = { width: 1280, height: 800 }): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS],
    viewport,
    reducedMotion: 'reduce',
    colorScheme: 'light',
    locale: 'en-GB',
    timezoneId: 'UTC',
  });
}
