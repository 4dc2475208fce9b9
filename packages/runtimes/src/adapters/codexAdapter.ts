import path from 'node:path';
import { PROJECT_ROOT_FOLDER } from '@loadout/kernel';
import { foldersUpToRepositoryRoot } from '../findRepositoryRoot.js';
import { codexMcpSupport } from '../mcp/codexMcpSupport.js';
import type { DiscoveryRoot, RuntimeAdapter } from '../RuntimeAdapter.js';
import { absoluteFolder, runtimeFolderIn } from '../RuntimeEnvironment.js';
import { codexDocuments } from './codexDocuments.js';
import { frontmatterText } from './admissionRules.js';
import { CODEX_LISTING } from './listingRules.js';

/** How deep Codex walks below a skills root looking for `SKILL.md` (its loader's MAX_SCAN_DEPTH). */
const CODEX_SCAN_DEPTH = 6;
/** The longest name Codex loads. */
const CODEX_MAX_NAME = 64;

/**
 * The system skills Codex 0.171.0 writes into `$CODEX_HOME/skills/.system` the first time it starts
 * a session. The end-to-end tests ask the pinned client again and fail when this list drifts.
 */
export const CODEX_SYSTEM_SKILLS = {
  version: '0.171.0',
  names: ['create-statusline', 'imagegen', 'openai-docs', 'review-agent', 'skill-creator', 'skill-installer'],
} as const;

/**
 * Codex. Repository skills: `.agents/skills` and `.codex/skills` in the working folder and each
 * parent up to the repository root (the nearest `.git`); user skills: `$HOME/.agents/skills` and
 * the deprecated `$CODEX_HOME/skills`; its system skills in `$CODEX_HOME/skills/.system`; admin
 * skills in `/etc/codex/skills`. Every copy of a name is listed (it de-duplicates by path only).
 * It loads only a `SKILL.md` (not a link) that starts with frontmatter, has a description, and a
 * name of at most 64 characters. Plugin skills are named `plugin:skill`.
 *
 * The project's `.agents/skills` is also Loadout's own project root: project-level skills are
 * already where Codex looks, so Loadout never copies them.
 * Verified 2026-12-03 against the source and the real client 0.171.0; see docs/runtimes.md.
 */
export const codexAdapter: RuntimeAdapter = {
  name: 'codex',
  verified: true,
  verifiedOn: '2026-12-03',
  sameName: 'all-listed',
  presence: (env) => ({ commands: ['codex'], homes: absoluteFolder(env.codexHome) }),
  client: {
    command: 'codex',
    versions: [{ version: '0.171.0', sameName: 'all-listed', skillReplacesBuiltIn: false, pluginSkillNames: 'namespaced' }],
  },
  sources: [
    'https://learn.chatgpt.com/docs/build-skills',
    'https://github.com/openai/codex/blob/main/codex-rs/core-skills/src/loader.rs',
    '@openai/codex 0.171.0, asked offline (packages/e2e/test/runtimes)',
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
        roots.push({
          dir: path.join(folder, '.codex', 'skills'),
          scope: 'project',
          depth: CODEX_SCAN_DEPTH,
          writes: null,
          note: 'project .codex folder',
        });
      }
    }
    roots.push({
      dir: path.join(env.home, PROJECT_ROOT_FOLDER, 'skills'),
      scope: 'user',
      depth: CODEX_SCAN_DEPTH,
      writes: 'user',
      note: 'user skills',
    });
    const codexHome = runtimeFolderIn(env.codexHome, project);
    if (codexHome !== null) {
      roots.push(
        {
          dir: path.join(codexHome, 'skills'),
          scope: 'user',
          depth: CODEX_SCAN_DEPTH,
          writes: null,
          note: 'deprecated user skills folder',
        },
        {
          dir: path.join(codexHome, 'skills', '.system'),
          scope: 'builtin',
          depth: CODEX_SCAN_DEPTH,
          writes: null,
          note: 'system skills Codex installs at its first start',
          installs: CODEX_SYSTEM_SKILLS.names,
        },
      );
    }
    roots.push({
      dir: path.join(env.codexSystemDir, 'skills'),
      scope: 'managed',
      depth: CODEX_SCAN_DEPTH,
      writes: null,
      note: 'admin skills',
    });
    if (codexHome !== null) {
      roots.push({
        dir: path.join(codexHome, 'plugins'),
        scope: 'namespaced',
        depth: 0,
        writes: null,
        note: 'plugin skills, named plugin:skill',
      });
    }
    return roots;
  },
  refuses(skill) {
    if (skill.skillFileIsLink) return 'Codex does not load a SKILL.md that is a link';
    if (!skill.startsWithFence || skill.frontmatter === null) return 'Codex does not load a SKILL.md without frontmatter';
    if (frontmatterText(skill, 'description') === null) return 'Codex does not load a skill without a description';
    const name = frontmatterText(skill, 'name') ?? skill.folderName;
    if (name.trim().replace(/\s+/g, ' ').length > CODEX_MAX_NAME)
      return `Codex does not load a name longer than ${CODEX_MAX_NAME} characters`;
    return null;
  },
  mcp: codexMcpSupport,
  documents: codexDocuments,
  listing: CODEX_LISTING,
};
