import fs from 'node:fs';
import path from 'node:path';
import { redactSecrets, type RunnableParts } from '@loadout/kernel';
import { realpathInside, trackedFs } from '@loadout/files';

/** What a simple check saw in what a capability runs. Never quotes a secret. */
export interface AuditFinding {
  /** `fetch-piped-to-shell`, `writes-outside-project` or `secret-in-definition`. */
  readonly code: string;
  readonly message: string;
  /** The file it is in, relative to the capability's root; absent for a definition. */
  readonly file?: string;
}

/** The most bytes of one file the checks read. */
const MAX_SCANNED_BYTES = 1024 * 1024;

/** `curl … | sh`, `wget -O- … | sudo bash`: code fetched from the network and run as it arrives. */
const FETCH_PIPED_TO_SHELL = /\b(?:curl|wget)\b[^\n|;]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b/;
/** A redirection, `tee`, or a copy/move/removal aimed at the home folder, a system folder or a parent. */
const WRITES_OUTSIDE = [
  /(?:>>?|\btee\s+(?:-a\s+)?)\s*["']?(?:~\/|\$HOME\b|\$\{HOME\}|\.\.\/|\/(?!dev\/(?:null|stdout|stderr)\b|tmp\/))/,
  /\b(?:rm|cp|mv|install|ln)\s[^\n]*\s["']?(?:~\/|\$HOME\b|\$\{HOME\}|\/(?:etc|usr|bin|sbin|var|opt|root|home|Users|Library)\b)/,
  /\bwriteFile(?:Sync)?\(\s*["'`](?:~\/|\/(?!tmp\/))/,
];
/** A field whose name says it holds a credential. */
const CREDENTIAL_NAME = /token|secret|passw|api[-_]?key|auth|credential|private[-_]?key/i;
/** A value that only names a variable of the environment it starts in: not a secret written down. */
const VARIABLE_REFERENCE = /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$|^Bearer \$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/;

/**
 * The simple checks `loadout audit` runs over what one capability runs: network fetches piped to a
 * shell, writes outside the project, and secrets written into a server's definition. They are
 * advice for the owner reading before approving, not a verdict: a finding holds nothing.
 */
export function auditFindings(parts: RunnableParts, rootDir: string): AuditFinding[] {
  const findings: AuditFinding[] = [];
  for (const file of parts.files) {
    const text = readText(rootDir, file);
    if (text === null) continue;
    const relative = path.relative(rootDir, file).split(path.sep).join('/');
    const fetch = lineOf(text, FETCH_PIPED_TO_SHELL);
    if (fetch !== null)
      findings.push({
        code: 'fetch-piped-to-shell',
        message: `line ${fetch}: fetches from the network and pipes it to a shell`,
        file: relative,
      });
    for (const pattern of WRITES_OUTSIDE) {
      const line = lineOf(text, pattern);
      if (line === null) continue;
      findings.push({
        code: 'writes-outside-project',
        message: `line ${line}: writes outside its own folder (the home folder, a system folder or a parent)`,
        file: relative,
      });
      break;
    }
  }
  const definition = JSON.stringify(parts.definition ?? null);
  if (FETCH_PIPED_TO_SHELL.test(definition))
    findings.push({ code: 'fetch-piped-to-shell', message: 'its command line fetches from the network and pipes it to a shell' });
  for (const where of secretsIn(parts.definition, [])) {
    findings.push({
      code: 'secret-in-definition',
      message: `${where} holds what looks like a secret written into the definition; pass it from the environment instead`,
    });
  }
  return findings;
}

/** Where in a definition a value looks like a secret: a credential-shaped value, or a credential-named field holding a literal. */
function secretsIn(value: unknown, at: readonly string[]): string[] {
  if (typeof value === 'string') {
    const named = at.some((part) => CREDENTIAL_NAME.test(part));
    const literal = value.trim() !== '' && !VARIABLE_REFERENCE.test(value.trim());
    return redactSecrets(value) !== value || (named && literal) ? [at.join('.') || 'the definition'] : [];
  }
  if (Array.isArray(value))
    return value.flatMap((item, index) => secretsIn(item, [...at.slice(0, -1), `${at[at.length - 1] ?? ''}[${index}]`]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => secretsIn(item, [...at, key]));
  return [];
}

function readText(rootDir: string, file: string): string | null {
  try {
    const real = realpathInside(rootDir, file);
    if (real === null) return null;
    const handle = trackedFs.openSync(real, 'r');
    try {
      const buffer = Buffer.alloc(MAX_SCANNED_BYTES);
      const read = fs.readSync(handle, buffer, 0, MAX_SCANNED_BYTES, 0);
      return buffer.subarray(0, read).toString('utf8');
    } finally {
      fs.closeSync(handle);
    }
  } catch {
    return null;
  }
}

function lineOf(text: string, pattern: RegExp): number | null {
  const match = pattern.exec(text);
  return match === null ? null : text.slice(0, match.index).split('\n').length;
}
