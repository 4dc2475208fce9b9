import { StaticAssetFolders, type StaticAssets } from '@loadout/api';
import { contribute, type LoadoutModule } from '@loadout/kernel';
import { webAssetsDir } from './webAssetsDir.js';

/**
 * The screen loads only its own files and talks only to this server: an injected script, a
 * framed page or a form posted elsewhere has nowhere to go.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The capability screen's files as the server serves them. */
export const webAssets: StaticAssets = { dir: webAssetsDir, contentSecurityPolicy: CONTENT_SECURITY_POLICY };

/** Serves the capability screen from `loadout serve`. */
export const webModule: LoadoutModule = { name: 'web', now: (container) => contribute(container, StaticAssetFolders, webAssets) };
