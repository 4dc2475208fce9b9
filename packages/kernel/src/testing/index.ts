import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { DependencyContainer } from 'tsyringe';
import type { z } from 'zod';
import { testdir, type TreeDescription, writeTree } from '@loadout/files/testing';
import type { CapabilityKind, CapabilityRecord } from '../CapabilityKind.js';
import type { InstalledPlugin } from '../PluginSource.js';
import { readMarkdownCapability } from '../readMarkdownCapability.js';
import { DirectScanSource, ScanSource } from '../ScanSource.js';
import { resolve } from '../token.js';

/** Runs git in `dir` with a fixed identity and no user or system config. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Loadout Test',
      GIT_AUTHOR_EMAIL: 'test@loadout.invalid',
      GIT_COMMITTER_NAME: 'Loadout Test',
      GIT_COMMITTER_EMAIL: 'test@loadout.invalid',
    },
  });
}

/** Makes `dir` a git repository with `tree` committed on branch `main`. */
export function gitRepo(dir: string, tree: TreeDescription, message = 'initial'): string {
  fs.mkdirSync(dir, { recursive: true });
  writeTree(dir, tree);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--allow-empty', '-m', message);
  return dir;
}

/** Writes `tree` into the repository and commits it. */
export function gitCommit(dir: string, tree: TreeDescription, message = 'change'): void {
  writeTree(dir, tree);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
}

/** A SKILL.md text with the given frontmatter fields and body. */
export function skillMarkdown(fields: Record<string, string>, body = 'Use this skill when asked.\n'): string {
  const lines = Object.entries(fields).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  return `---\n${lines.join('\n')}\n---\n${body}`;
}

/** A minimal kind for kernel tests: every `notes/<file>.md`, identified by its frontmatter name. */
export const noteKind: CapabilityKind = {
  kind: 'note',
  folder: 'notes',
  sessionKey: 'notes',
  document: { idRule: 'name', nameField: 'frontmatter' },
  readEntry: (entry) => {
    if (entry.isDirectory || !entry.name.endsWith('.md')) return { records: [], diagnostics: [] };
    const read = readMarkdownCapability(entry.root.dir, entry.path, noteKind.document);
    return { records: read === null ? [] : [read.draft], diagnostics: [] };
  },
};

/**
 * A home for a session loader: a project whose `.agents` holds `tree.project`, the owner's
 * capabilities, and each plugin's folder, listed as installed and enabled.
 */
export function loaderWorkspace(tree: { project?: TreeDescription; owner?: TreeDescription; plugins?: Record<string, TreeDescription> }): {
  home: string;
  project: string;
  plugins: InstalledPlugin[];
} {
  const home = testdir({ project: { '.agents': tree.project ?? {} }, capabilities: tree.owner ?? {}, plugins: tree.plugins ?? {} });
  const plugins = Object.keys(tree.plugins ?? {}).map((name) => ({ name, dir: path.join(home, 'plugins', name), enabled: true }));
  return { home, project: path.join(home, 'project'), plugins };
}

/** A skill record made by hand, `fields` over a plain one: for tests of what is done with records. */
export function recordOf(id: string, fields: Partial<CapabilityRecord> = {}): CapabilityRecord {
  return {
    kind: 'skill',
    id,
    name: id,
    description: `the ${id} skill`,
    level: 'global',
    plugin: null,
    path: `/skills/${id}/SKILL.md`,
    gates: {},
    ...fields,
  };
}

/** {@link noteKind} under another name and folder, counting its reads by kind in `reads`. */
export function countingKind(reads: Map<string, number>, kind: string, folder: string): CapabilityKind {
  return {
    ...noteKind,
    kind,
    folder,
    sessionKey: folder,
    readEntry: (entry) => (reads.set(kind, (reads.get(kind) ?? 0) + 1), noteKind.readEntry(entry)),
  };
}

/**
 * Holds a hand check to its schema on one value (see `plainFirstShape`): whatever `plain` accepts
 * the schema must accept, to the same value with its keys in the same order; throws naming the
 * value when they differ. Says what each made of it, so a test can also count what was left to
 * the schema.
 */
export function compareWithSchema<T>(
  plain: (value: unknown) => T | null,
  schema: z.ZodType<T>,
  value: unknown,
): { readonly plain: boolean; readonly schema: boolean } {
  const byHand = plain(value);
  const parsed = schema.safeParse(value);
  if (
    byHand !== null &&
    (!parsed.success || !isDeepStrictEqual(byHand, parsed.data) || JSON.stringify(byHand) !== JSON.stringify(parsed.data))
  ) {
    const why = parsed.success ? `the schema made ${JSON.stringify(parsed.data)}` : 'the schema refused it';
    throw new Error(`the hand check accepted ${JSON.stringify(value)} as ${JSON.stringify(byHand)}, but ${why}`);
  }
  return { plain: byHand !== null, schema: parsed.success };
}

/**
 * {@link compareWithSchema} over many values: how many the hand check accepted, how many the
 * schema refused, and the values the schema accepted that the hand check left to it.
 */
export function compareAllWithSchema<T>(
  plain: (value: unknown) => T | null,
  schema: z.ZodType<T>,
  values: readonly unknown[],
): { readonly accepted: number; readonly refused: number; readonly leftToSchema: readonly unknown[] } {
  let accepted = 0;
  let refused = 0;
  const leftToSchema: unknown[] = [];
  for (const value of values) {
    const verdict = compareWithSchema(plain, schema, value);
    if (verdict.plain) accepted += 1;
    if (!verdict.schema) refused += 1;
    if (verdict.schema && !verdict.plain) leftToSchema.push(value);
  }
  return { accepted, refused, leftToSchema };
}

/** `base` with `field` set to `value`, or without `field` when `value` is undefined. */
export function withField(base: Readonly<Record<string, unknown>>, field: string, value: unknown): Record<string, unknown> {
  const { [field]: _replaced, ...rest } = base;
  return value === undefined ? rest : { ...rest, [field]: value };
}

/**
 * Makes `container`'s session loader hand out only frozen things: every record, every list of
 * records or diagnostics and every block its scan source gives (the registered one, or the
 * kernel's direct one). Records and lists are never changed once made — what keeps reads relies
 * on it — so a test kernel enforces it: sorting a session's records in place, or changing a
 * record, throws. Call it before the first session opens.
 */
export function freezeReads(container: DependencyContainer): void {
  const inner: ScanSource = container.isRegistered(ScanSource, true) ? resolve(container, ScanSource) : new DirectScanSource();
  const frozen: ScanSource = {
    get generation() {
      return inner.generation;
    },
    get diagnostics() {
      return deepFreeze(inner.diagnostics);
    },
    ticket: () => inner.ticket(),
    validate: (kinds, since) => inner.validate(kinds, since),
    settle: () => inner.settle(),
    scanFolder: (rootDir, name, list, read, of) =>
      deepFreeze(inner.scanFolder(rootDir, name, list, (entry) => deepFreeze(read(entry)), of)),
    scanned: (rootDirs) => inner.scanned(rootDirs),
    shadowed: (roots, kinds, collect) => deepFreeze(inner.shadowed(roots, kinds, collect)),
    held: (records, holds) => deepFreeze(inner.held(records, holds)),
    grouped: (winners, kinds, kindKeys) => {
      const byKey = inner.grouped(winners, kinds, kindKeys);
      for (const records of byKey.values()) deepFreeze(records);
      return byKey;
    },
    rendered: (title, records, budget) => deepFreeze(inner.rendered(title, records, budget)),
    close: () => inner.close(),
  };
  container.register(ScanSource, { useValue: frozen });
}

/** Freezes a value and every object and array in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
  return value;
}
