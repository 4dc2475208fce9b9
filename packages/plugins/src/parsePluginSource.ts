import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { redactCredentials } from '@loadout/kernel';
import { PluginInputRefusedError } from './PluginErrors.js';
import { trackedFs } from '@loadout/files';

/** The transports a plugin may be cloned over. */
export type PluginTransport = 'https' | 'ssh' | 'git' | 'file';

/** A plugin's git URL, checked and ready to hand to git. */
export interface PluginSourceUrl {
  /** What git is given. May hold a credential, so it is never shown, logged or stored. */
  readonly url: string;
  /** The same URL with any credential removed: the only form shown or stored. */
  readonly displayUrl: string;
  readonly transport: PluginTransport;
  /** The repository's base name without `.git`: the last resort for the plugin's name. */
  readonly baseName: string;
}

const SCHEMES: Readonly<Record<string, PluginTransport>> = { 'https:': 'https', 'ssh:': 'ssh', 'git:': 'git', 'file:': 'file' };
const MAX_URL_LENGTH = 4096;

/**
 * Checks a plugin URL before git ever sees it. Accepted: `https://`, `ssh://`, scp-like
 * `user@host:path`, `git://`, `file://`, and a plain path to a local repository (which becomes a
 * `file://` URL). Refused: anything git could read as an option (a leading `-`, `--upload-pack`),
 * a transport helper (`ext::`, `fd::`) that runs commands, whitespace and control characters, and a
 * host or user that starts with `-` (ssh would take it as an option).
 *
 * @param cwd where a relative local path is taken from
 */
export function parsePluginSource(input: string, cwd: string): PluginSourceUrl {
  if (typeof input !== 'string' || input.length === 0) refuse(input, 'is empty');
  if (input.length > MAX_URL_LENGTH) refuse(input, `is longer than ${MAX_URL_LENGTH} characters`);
  if (/[\s\p{Cc}]/u.test(input)) refuse(input, 'holds whitespace or control characters');
  if (input.startsWith('-')) refuse(input, 'starts with "-" and would be read by git as an option');
  if (/--(upload|receive)-pack|--config|--exec/i.test(input)) refuse(input, 'names a git option');
  // `<transport>::<address>` makes git run a remote helper; `ext::` runs any command it is given.
  if (/^[a-z][a-z0-9+.-]*::/i.test(input)) refuse(input, 'uses a git remote helper ("<transport>::"), which can run commands');

  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(input);
  if (scheme !== null) return parseSchemeUrl(input);
  const scpLike = /^(?:([^@/:]+)@)?([^@/:]+):(.+)$/.exec(input);
  if (scpLike !== null) return parseScpLike(input, scpLike[1], scpLike[2] ?? '', scpLike[3] ?? '');
  return parseLocalPath(input, cwd);
}

function parseSchemeUrl(input: string): PluginSourceUrl {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    refuse(input, 'is not a valid URL');
  }
  const transport = SCHEMES[url.protocol];
  if (transport === undefined) refuse(input, `uses ${url.protocol.slice(0, -1)}; only https, ssh, git and file URLs are allowed`);
  if (transport === 'file') {
    if (url.hostname !== '' && url.hostname !== 'localhost') refuse(input, 'names a host; a file URL must point at this machine');
    return { url: input, displayUrl: input, transport, baseName: baseNameOf(fileURLToPath(url)) };
  }
  if (url.hostname === '') refuse(input, 'has no host');
  if (url.hostname.startsWith('-') || decodeURIComponent(url.username).startsWith('-')) {
    refuse(input, 'has a host or user starting with "-", which ssh would read as an option');
  }
  return { url: input, displayUrl: redactCredentials(input), transport, baseName: baseNameOf(safeDecode(url.pathname)) };
}

function parseScpLike(input: string, user: string | undefined, host: string, repoPath: string): PluginSourceUrl {
  if (host.startsWith('-') || (user ?? '').startsWith('-') || repoPath.startsWith('-')) {
    refuse(input, 'has a host, user or path starting with "-", which ssh would read as an option');
  }
  return { url: input, displayUrl: input, transport: 'ssh', baseName: baseNameOf(repoPath) };
}

function parseLocalPath(input: string, cwd: string): PluginSourceUrl {
  const absolute = path.resolve(cwd, input);
  let isDirectory = false;
  try {
    isDirectory = trackedFs.statSync(absolute).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) {
    throw new PluginInputRefusedError(
      'PLUGIN_SOURCE_NOT_FOUND',
      `plugin source ${show(input)} is neither an https, ssh, git or file URL nor a local folder`,
    );
  }
  const url = pathToFileURL(absolute).href;
  return { url, displayUrl: url, transport: 'file', baseName: baseNameOf(absolute) };
}

/** `owner/repo.git` → `repo`; `repo/.git` → `repo`. */
function baseNameOf(repoPath: string): string {
  const segments = repoPath.split(/[/\\]+/).filter((segment) => segment !== '');
  let last = segments.pop() ?? '';
  if (last === '.git') last = segments.pop() ?? '';
  return last.replace(/\.git$/i, '');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function refuse(input: string, reason: string): never {
  throw new PluginInputRefusedError('PLUGIN_URL_REFUSED', `plugin URL ${show(input)} ${reason}`);
}

/** The input as it may be shown: credentials removed, control characters escaped, bounded. */
function show(input: unknown): string {
  const text = redactCredentials(String(input));
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}
