import path from 'node:path';
import { PROJECT_ROOT_FOLDER } from '@loadout/kernel';
import type { DiscoveryRoot, RuntimeAdapter } from '../RuntimeAdapter.js';

/**
 * Antigravity. Public material names several folders (`.agents/skills` and `.agent/skills` in the
 * workspace, `~/.gemini/antigravity/skills` for the user) but how a current desktop build ranks two
 * skills of one name is not verified, so the adapter reports `unconfirmed` and Loadout writes
 * nothing for it. The roots are listed for the matrix only.
 */
export const antigravityAdapter: RuntimeAdapter = {
  name: 'antigravity',
  verified: false,
  verifiedOn: null,
  sameName: 'unverified',
  sources: ['https://antigravity.google/docs/skills'],
  discoveryRoots(project, env) {
    const roots: DiscoveryRoot[] = [];
    if (project !== null) {
      roots.push(
        { dir: path.join(project, PROJECT_ROOT_FOLDER, 'skills'), scope: 'project', depth: 1, writes: null, note: 'workspace skills (unverified)' },
        { dir: path.join(project, '.agent', 'skills'), scope: 'project', depth: 1, writes: null, note: 'workspace skills, older name (unverified)' },
      );
    }
    roots.push({ dir: path.join(env.home, '.gemini', 'antigravity', 'skills'), scope: 'user', depth: 1, writes: null, note: 'global skills (unverified)' });
    return roots;
  },
};
