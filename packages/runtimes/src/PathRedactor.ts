import path from 'node:path';
import { isInside, redactCredentials } from '@loadout/kernel';

/** A folder diagnostics name by a label instead of its absolute path. */
export interface PathAnchor {
  readonly dir: string;
  /** e.g. `~`, `<project>`, `$CODEX_HOME`. */
  readonly label: string;
}

/**
 * Values shaped like credentials: provider tokens with well-known prefixes, cloud access keys,
 * bearer tokens, `secret=…` pairs, long hex runs, and long mixed-case alphanumeric runs that only
 * keys have (a skill name is lower-case, so it never matches).
 */
const CREDENTIAL_SHAPES: readonly RegExp[] = [
  // Provider tokens are mixed-case; requiring an upper-case letter keeps a skill slug like `sk-tools` readable.
  /\b(?:gh[pousr]_|github_pat_|glpat-|sk-(?:ant-|proj-)?|pk_live_|sk_live_|rk_live_|AIza|ya29\.|npm_)(?=[A-Za-z0-9_\-.]*[A-Z])[A-Za-z0-9_\-.]{12,}/g,
  /\bxox[abprs]-\d+-[A-Za-z0-9-]{8,}/g,
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /\b(bearer|token|secret|password|passwd|api[_-]?key|access[_-]?key)(\s*[:=]\s*|\s+)([^\s,;'"]{6,})/gi,
  /\b[A-Fa-f0-9]{40,}\b/g,
  /\b(?=[A-Za-z0-9+_-]*[0-9])(?=[A-Za-z0-9+_-]*[A-Z])(?=[A-Za-z0-9+_-]*[a-z])[A-Za-z0-9+_-]{32,}={0,2}/g,
];

/**
 * Removes credential-shaped values from text meant for people: URL credentials (through the
 * kernel's one function), then anything shaped like a token or key, replaced by `[redacted]`.
 */
export function redactSecrets(text: string): string {
  let result = redactCredentials(text);
  for (const shape of CREDENTIAL_SHAPES) {
    result = result.replace(shape, (match, ...groups: unknown[]) => {
      if (typeof groups[0] === 'string' && typeof groups[1] === 'string' && typeof groups[2] === 'string') {
        return `${groups[0]}${groups[1]}[redacted]`;
      }
      return '[redacted]';
    });
  }
  return result;
}

/**
 * Writes absolute paths the way diagnostics may show them: relative to the most specific known
 * folder (`<project>/.claude/skills/pdf`, `~/.agents/skills/pdf`), never as an absolute home path.
 * A path under no known folder shows only its last segment.
 */
export class PathRedactor {
  private readonly anchors: PathAnchor[];

  constructor(anchors: readonly PathAnchor[]) {
    // The longest folder first, so `<project>` wins over `~` when the project is in the home folder.
    this.anchors = anchors
      .filter((anchor) => anchor.dir !== '' && path.isAbsolute(anchor.dir))
      .map((anchor) => ({ dir: path.resolve(anchor.dir), label: anchor.label }))
      .sort((a, b) => b.dir.length - a.dir.length);
  }

  /** The redacted form of an absolute path. */
  path(absolute: string): string {
    const resolved = path.resolve(absolute);
    for (const anchor of this.anchors) {
      if (!isInside(anchor.dir, resolved)) continue;
      const relative = path.relative(anchor.dir, resolved).split(path.sep).join('/');
      return redactSecrets(relative === '' ? anchor.label : `${anchor.label}/${relative}`);
    }
    return redactSecrets(`…/${path.basename(resolved)}`);
  }

  /** Replaces every anchored absolute path inside free text, then credential-shaped values. */
  text(message: string): string {
    let result = message;
    for (const anchor of this.anchors) {
      const escaped = anchor.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      result = result.replace(new RegExp(`${escaped}(?=/|$|[^A-Za-z0-9._-])`, 'g'), anchor.label);
    }
    return redactSecrets(result);
  }
}
