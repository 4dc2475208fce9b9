import path from 'node:path';
import { PROJECT_ROOT_FOLDER } from '@loadout/kernel';
import { foldersUpToRepositoryRoot } from '../findRepositoryRoot.js';
import type { DiscoveryRoot, RuntimeAdapter } from '../RuntimeAdapter.js';

/** How deep Codex walks below a skills root looking for `SKILL.md` (its loader's MAX_SCAN_DEPTH). */
const CODEX_SCAN_DEPTH = 6;

/**
 * Codex. Repository skills: `.agents/skills` in the working folder and each parent up to the
 * repository root (the nearest `.git`), plus the legacy `.codex/skills` of those folders; user
 * skills: `$HOME/.agents/skills` and the deprecated `$CODEX_HOME/skills`; built-in: the system
 * cache `$CODEX_HOME/skills/.system` and the admin folder `/etc/codex/skills`. Codex does not hide
 * a same-name skill: every copy is listed (it de-duplicates by path only), ranked repo, user,
 * system, admin. Plugin skills are named `plugin:skill`.
 *
 * The project's `.agents/skills` is also Loadout's own project root: project-level skills are
 * already where Codex looks, so Loadout never copies them.
 * Verified 2026-12-02; see docs/runtimes.md.
 */
export const codexAdapter: RuntimeAdapter = {
  name: 'codex',
  verified: true,
  verifiedOn: '2026-12-02',
  sameName: 'all-listed',
  sources: [
    'https://developers.openai.com/codex/skills',
    'https://github.com/openai/codex/blob/main/codex-rs/core-skills/src/loader.rs',
  ],
  discoveryRoots(project, env) {
    const roots: DiscoveryRoot[] = [];
    if (project !== null) {
      for (const folder of foldersUpToRepositoryRoot(project)) {
        const isProject = folder === path.resolve(project);
        roots.push({
          dir: path.join(folder, PROJECT_ROOT_FOLDER, 'skills'),
          scope: 'project',
          depth: CODEX_SCAN_DEPTH,
          writes: isProject ? 'project' : null,
          note: isProject ? "the working folder's skills (Loadout's project root)" : 'a parent folder up to the repository root',
        });
        roots.push({ dir: path.join(folder, '.codex', 'skills'), scope: 'project', depth: CODEX_SCAN_DEPTH, writes: null, note: 'legacy project config folder' });
      }
    }
    roots.push(
      { dir: path.join(env.home, PROJECT_ROOT_FOLDER, 'skills'), scope: 'user', depth: CODEX_SCAN_DEPTH, writes: 'user', note: 'user skills' },
      { dir: path.join(env.codexHome, 'skills'), scope: 'user', depth: CODEX_SCAN_DEPTH, writes: null, note: 'deprecated user skills folder' },
      { dir: path.join(env.codexHome, 'skills', '.system'), scope: 'builtin', depth: CODEX_SCAN_DEPTH, writes: null, note: 'system skills Codex installs itself' },
      { dir: path.join(env.codexSystemDir, 'skills'), scope: 'builtin', depth: CODEX_SCAN_DEPTH, writes: null, note: 'admin skills' },
      { dir: path.join(env.codexHome, 'plugins'), scope: 'namespaced', depth: 0, writes: null, note: 'plugin skills, named plugin:skill' },
    );
    return roots;
  },
};
