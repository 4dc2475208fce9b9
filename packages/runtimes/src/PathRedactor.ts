import path from 'node:path';
import { isNormalAbsolute } from '@loadout/files';
import { redactSecrets } from '@loadout/kernel';

/** A folder diagnostics name by a label instead of its absolute path. */
export interface PathAnchor {
  readonly dir: string;
  /** e.g. `~`, `<project>`, `$CODEX_HOME`. */
  readonly label: string;
}

/**
 * Writes absolute paths the way diagnostics may show them: relative to the most specific known
 * folder (`<project>/.claude/skills/pdf`, `~/.agents/skills/pdf`), never as an absolute home path.
 * A path under no known folder shows only its last segment.
 */
export class PathRedactor {
  private readonly anchors: (PathAnchor & { readonly prefix: string; readonly inText: RegExp })[];
  /** Each path once: a plan shows the same folders in many places (every copy a runtime sees). */
  private readonly shown = new Map<string, string>();

  constructor(anchors: readonly PathAnchor[]) {
    // The longest folder first, so `<project>` wins over `~` when the project is in the home folder.
    this.anchors = anchors
      .filter((anchor) => anchor.dir !== '' && path.isAbsolute(anchor.dir))
      .map((anchor) => {
        const dir = path.resolve(anchor.dir);
        return {
          dir,
          label: anchor.label,
          prefix: dir.endsWith(path.sep) ? dir : `${dir}${path.sep}`,
          // Made once: a plan redacts every finding's message, thousands at 10,000 skills.
          inText: new RegExp(`${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=/|$|[^A-Za-z0-9._-])`, 'g'),
        };
      })
      .sort((a, b) => b.dir.length - a.dir.length);
  }

  /** The redacted form of an absolute path. */
  path(absolute: string): string {
    let shown = this.shown.get(absolute);
    if (shown === undefined) {
      shown = this.redact(absolute);
      this.shown.set(absolute, shown);
    }
    return shown;
  }

  private redact(absolute: string): string {
    // Most paths a plan shows are already absolute and normal: `path.resolve` would return them as they are.
    const resolved = isNormalAbsolute(absolute) ? absolute : path.resolve(absolute);
    for (const anchor of this.anchors) {
      // Both are resolved: inside means equal, or starting with the folder and a separator.
      if (resolved !== anchor.dir && !resolved.startsWith(anchor.prefix)) continue;
      const relative = resolved.slice(anchor.prefix.length).split(path.sep).join('/');
      return redactSecrets(relative === '' ? anchor.label : `${anchor.label}/${relative}`);
    }
    return redactSecrets(`…/${path.basename(resolved)}`);
  }

  /** Replaces every anchored absolute path inside free text, then credential-shaped values. */
  text(message: string): string {
    let result = message;
    for (const anchor of this.anchors) result = result.replace(anchor.inText, anchor.label);
    return redactSecrets(result);
  }
}
