import path from 'node:path';
import { isInside } from '@loadout/files';
import type { DiscoveryRoot } from './RuntimeAdapter.js';
import { physicalPath } from './SourceSkill.js';

/** Where a runtime root Loadout writes leads when a link takes it out of the folder it claims to be in. */
export interface RootOutside {
  /** The folder the root claims to be in: the project, the home folder, or the folder a variable names. */
  readonly anchor: string;
  /** Where the root really is. */
  readonly physical: string;
}

/**
 * Whether a root Loadout writes is where it claims: a project's root must stay inside the project,
 * a user's root inside the home folder (or, for a folder a variable puts elsewhere, inside that
 * folder), whatever links lie on the way. A repository can commit `.claude/skills` as a link; that
 * link must never carry the project's skills into `~/.claude/skills` or anywhere else.
 *
 * @param root a skills folder, or a configuration file Loadout writes (its own link counts too)
 * @returns null when the root stays inside its anchor (links that stay inside are fine)
 */
export function rootOutsideAnchor(root: Pick<DiscoveryRoot, 'dir' | 'scope'>, project: string | null, home: string): RootOutside | null {
  const dir = path.resolve(root.dir);
  let anchor: string;
  if (root.scope === 'project' && project !== null && isInside(path.resolve(project), dir)) anchor = path.resolve(project);
  else if (root.scope !== 'project' && isInside(home, dir)) anchor = home;
  else if (root.scope === 'project') return { anchor: project ?? path.dirname(dir), physical: physicalPath(dir) };
  else anchor = path.dirname(dir);
  const physical = physicalPath(dir);
  return isInside(physicalPath(anchor), physical) ? null : { anchor, physical };
}
