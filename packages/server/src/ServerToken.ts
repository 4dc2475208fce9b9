import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { InvalidInputError, trackedFs } from '@loadout/files';

/** The token file's name inside the data folder. */
export const TOKEN_FILE = 'server-token';
/** The shortest token accepted from `LOADOUT_TOKEN`. */
export const MIN_TOKEN_LENGTH = 16;

/** The server token and where it came from, so the server can tell the owner how to authenticate. */
export type ServerToken =
  | { readonly value: string; readonly source: 'env' }
  | { readonly value: string; readonly source: 'file'; readonly file: string };

/**
 * The token mutating requests must carry: `fromEnv` (`LOADOUT_TOKEN`) when set, else the one in
 * `<dataDir>/server-token`, created on first use with mode 0600. The file is made complete beside
 * the target and linked into place, so two servers starting at once agree on one token and a crash
 * never leaves an empty file.
 */
export function resolveServerToken(dataDir: string, fromEnv: string | undefined): ServerToken {
  if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.length < MIN_TOKEN_LENGTH || /\s/.test(fromEnv)) {
      throw new InvalidInputError('TOKEN_TOO_WEAK', `LOADOUT_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters without spaces`);
    }
    return { value: fromEnv, source: 'env' };
  }
  trackedFs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, TOKEN_FILE);
  const existing = readToken(file);
  if (existing !== null) return { value: existing, source: 'file', file };
  const staging = path.join(dataDir, `.${TOKEN_FILE}-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    trackedFs.writeFileSync(staging, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      trackedFs.linkSync(staging, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } finally {
    trackedFs.rmSync(staging, { force: true });
  }
  const created = readToken(file);
  if (created === null) throw new InvalidInputError('TOKEN_FILE_INVALID', `${file} holds no token; remove it to have a new one made`);
  return { value: created, source: 'file', file };
}

function readToken(file: string): string | null {
  let text: string;
  try {
    text = trackedFs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  // Only the owner may read it: tighten a file that someone made readable by others.
  if ((trackedFs.statSync(file).mode & 0o077) !== 0) trackedFs.chmodSync(file, 0o600);
  const token = text.trim();
  return token.length >= MIN_TOKEN_LENGTH ? token : null;
}
