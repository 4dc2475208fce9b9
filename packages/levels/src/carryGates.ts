import path from 'node:path';
import { collisionKey, readTextInside } from '@loadout/kernel';
import { editJsonText, writeFileAtomicSync } from '@loadout/files';
import { CONFIG_FILE, decideGate, GateConfigInvalidError, gateKey, planGateRewrite, readGateConfig, withConfigLock } from '@loadout/state';

/** The gate settings a move carries, worked out before anything is touched. */
export interface GateCarryPlan {
  /** Gate name → the configured value the source row showed, for gates a `config.json` decided. */
  readonly values: ReadonlyMap<string, boolean>;
  /** Whether the source root's `config.json` holds an entry for the old id, to be dropped. */
  readonly sourceHasEntry: boolean;
}

/**
 * What the source row showed for each declared gate: the first `config.json` of its view that sets
 * it (`viewRoots`, nearest first: the project's root, then the owner's). A gate left at its declared
 * default is not carried, so it keeps following the document's own default. Reading a broken
 * `config.json` throws `STATE_CONFIG_INVALID` here, before the move starts.
 */
export function planGateCarry(
  kind: string,
  id: string,
  declared: Readonly<Record<string, boolean>>,
  sourceRootDir: string,
  viewRoots: readonly string[],
): GateCarryPlan {
  const configs = viewRoots.map((dir) => readGateConfig(dir));
  const projectConfig = configs.length > 1 ? (configs[0] ?? null) : null;
  const ownerConfig = configs[configs.length - 1] ?? null;
  const values = new Map<string, boolean>();
  for (const [gate, fallback] of Object.entries(declared)) {
    const decided = decideGate(kind, id, gate, fallback, projectConfig, ownerConfig);
    if (decided.decidedBy !== 'declared-default') values.set(gate, decided.configured);
  }
  const sourceText = readConfigText(sourceRootDir);
  return { values, sourceHasEntry: sourceText !== null && withoutGateEntry(sourceText, kind, id) !== null };
}

/**
 * Writes the carried values under the new id in the destination root's `config.json`, then drops
 * the old id's entry from the source root's — each file under its lock, written atomically.
 */
export async function applyGateCarry(
  plan: GateCarryPlan,
  kind: string,
  ids: { readonly from: string; readonly to: string },
  roots: { readonly from: string; readonly to: string },
): Promise<void> {
  if (plan.values.size > 0) {
    const changes = [...plan.values].map(([gate, value]) => ({ kind, id: ids.to, gate, value }));
    await withConfigLock(path.join(roots.to, CONFIG_FILE), () => {
      const rewrite = planGateRewrite(roots.to, changes);
      writeFileAtomicSync(rewrite.file, rewrite.text);
    });
  }
  if (plan.sourceHasEntry) {
    await withConfigLock(path.join(roots.from, CONFIG_FILE), () => {
      const text = readConfigText(roots.from);
      const rewritten = text === null ? null : withoutGateEntry(text, kind, ids.from);
      if (rewritten !== null) writeFileAtomicSync(path.join(roots.from, CONFIG_FILE), rewritten);
    });
  }
}

/**
 * A `config.json` text without the gates entry of `kind/id` (any spelling of the id), every other
 * byte kept (`editJsonText`); null when the file holds no such entry.
 */
export function withoutGateEntry(text: string, kind: string, id: string): string | null {
  const file = CONFIG_FILE;
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    throw new GateConfigInvalidError(file, `not valid JSON (${(error as Error).message})`, { cause: error });
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return null;
  const gates = (config as Record<string, unknown>).gates;
  if (gates === null || typeof gates !== 'object' || Array.isArray(gates)) return null;
  const wanted = gateKey(kind, id);
  const keys = Object.keys(gates).filter((key) => collisionKey(key) === wanted);
  if (keys.length === 0) return null;
  const edited = editJsonText(
    text,
    keys.map((key) => ({ path: ['gates', key], value: undefined })),
  );
  if (edited === null)
    throw new GateConfigInvalidError(
      file,
      `cannot lose the gates of ${wanted} without changing other settings (a key written twice?); edit it by hand`,
    );
  return edited;
}

function readConfigText(rootDir: string): string | null {
  return readTextInside(rootDir, path.join(rootDir, CONFIG_FILE));
}
