import type { DiscoveryRoot, RuntimeAdapter, WriteTarget } from './RuntimeAdapter.js';
import type { BundleStampCache } from './BundleStampCache.js';
import { RuntimeManifestInvalidError } from './RuntimeErrors.js';
import { RuntimeManifest } from './RuntimeManifest.js';
import { type RootContents, type ScannedSkill, scanRuntimeRoot } from './scanRuntimeRoot.js';
import { physicalPath } from './SourceSkill.js';

/**
 * One folder on disk that one or more runtimes read skills from. Planning works per physical root:
 * one write serves every runtime that reads the folder, and it is scanned and its manifest read
 * once, however many runtimes read it.
 */
export interface PhysicalRoot {
  /** The physical path, the root's identity. */
  readonly key: string;
  /** The path as the first adapter spelled it. */
  readonly dir: string;
  /** Every selected runtime that reads it. */
  readonly readers: string[];
  /** The judged runtimes that write Loadout's skills into it. */
  readonly writers: string[];
  /**
   * Which of Loadout's skills it holds: the project's, the user's, or both when one folder is a
   * project root and a user root at once (a project that is the home folder).
   */
  readonly targets: ReadonlySet<WriteTarget>;
  /** Whether the folder is one of Loadout's own roots' `skills/` (read in place, never written). */
  readonly isLoadoutRoot: boolean;
  /** How deep the deepest reader looks. */
  readonly depth: number;
  readonly contents: RootContents;
  /** What Loadout wrote here; null when nothing writes here or the folder does not exist. */
  readonly manifest: RuntimeManifest | null;
  /** Why the manifest cannot be trusted; the root is then left alone. */
  readonly manifestProblem: string | null;
  /** The scanned skill folder at an entry path. */
  entry(path: string): ScannedSkill | undefined;
}

/** A runtime's roots, in its precedence order, each with the physical root it lands on. */
export interface RuntimeRoots {
  readonly adapter: RuntimeAdapter;
  readonly judged: boolean;
  readonly roots: readonly DiscoveryRoot[];
  readonly physical: readonly PhysicalRoot[];
}

/**
 * Collects the roots of the selected runtimes into physical roots: scans each once (as deep as its
 * deepest reader looks) and reads the manifest of each root a judged runtime writes into. The
 * copies' bundles are hashed when asked, or known by `stamps`.
 */
export function collectPhysicalRoots(
  runtimes: readonly { adapter: RuntimeAdapter; judged: boolean; roots: readonly DiscoveryRoot[] }[],
  loadoutSkillFolders: ReadonlySet<string>,
  stamps: BundleStampCache,
): { byRuntime: RuntimeRoots[]; roots: PhysicalRoot[] } {
  const drafts = new Map<
    string,
    { dir: string; readers: string[]; writers: string[]; targets: Set<WriteTarget>; depth: number; scope: DiscoveryRoot['scope'] }
  >();
  const keysByRuntime = runtimes.map(({ adapter, judged, roots }) =>
    roots.map((root) => {
      const key = physicalPath(root.dir);
      const draft = drafts.get(key) ?? {
        dir: root.dir,
        readers: [],
        writers: [],
        targets: new Set<WriteTarget>(),
        depth: 0,
        scope: root.scope,
      };
      drafts.set(key, draft);
      if (!draft.readers.includes(adapter.name)) draft.readers.push(adapter.name);
      draft.depth = Math.max(draft.depth, root.depth);
      if (judged && root.writes !== null) {
        if (!draft.writers.includes(adapter.name)) draft.writers.push(adapter.name);
        draft.targets.add(root.writes);
      }
      return key;
    }),
  );
  const physical = new Map<string, PhysicalRoot>();
  for (const [key, draft] of drafts) {
    const contents: RootContents =
      draft.scope === 'namespaced'
        ? { exists: false, skills: [], occupied: new Set() }
        : scanRuntimeRoot({ dir: draft.dir, scope: draft.scope, depth: draft.depth, writes: null, note: '' }, stamps);
    let manifest: RuntimeManifest | null = null;
    let manifestProblem: string | null = null;
    if (draft.writers.length > 0 && contents.exists) {
      try {
        manifest = RuntimeManifest.read(draft.dir);
      } catch (error) {
        if (!(error instanceof RuntimeManifestInvalidError)) throw error;
        manifestProblem = error.message;
      }
    }
    const index = new Map(contents.skills.map((skill) => [skill.entry, skill]));
    physical.set(key, {
      key,
      dir: draft.dir,
      readers: draft.readers,
      writers: draft.writers,
      targets: draft.targets,
      isLoadoutRoot: loadoutSkillFolders.has(key),
      depth: draft.depth,
      contents,
      manifest,
      manifestProblem,
      entry: (entryPath) => index.get(entryPath),
    });
  }
  const byRuntime = runtimes.map(({ adapter, judged, roots }, index) => ({
    adapter,
    judged,
    roots,
    physical: (keysByRuntime[index] as string[]).map((key) => physical.get(key) as PhysicalRoot),
  }));
  return { byRuntime, roots: [...physical.values()] };
}
