import path from 'node:path';
import { parseMarkdown, readTextInside } from '@loadout/kernel';
import { DocumentRefusedError, type FolderListing, isFolderStamp, listFolderInside, trackedFs } from '@loadout/files';
import type { DiscoveryRoot, SkillFileFacts } from './RuntimeAdapter.js';
import { BundleStampCache } from './BundleStampCache.js';
import { SKILL_FILE, type SkillBundle } from './SkillBundle.js';
import { listedSkillName } from './skillNames.js';
import { TextMemo } from './TextMemo.js';

/** A skill folder found in a runtime root, as the runtime would find it. */
export interface ScannedSkill {
  /** Absolute path of the folder as listed (it may be a link). */
  readonly dir: string;
  /** Path relative to the root with `/` separators; one segment for a top-level folder. */
  readonly entry: string;
  /** The name a runtime lists it under: the frontmatter `name`, else the folder's. */
  readonly name: string;
  /** What a runtime looks at when it decides whether to load it. */
  readonly facts: SkillFileFacts;
  /** The folder's real path, or null when it is a link leading outside the root. */
  readonly realDir: string | null;
  /** The bundle hash, read on first use; null when the folder cannot be read as a bundle. */
  hash(): string | null;
  /** Why the folder cannot be read, when it cannot. */
  problem(): string | null;
}

/** What one runtime root holds. */
export interface RootContents {
  readonly exists: boolean;
  readonly skills: readonly ScannedSkill[];
  /** Every top-level name in the root that is not hidden, whatever it is: a destination must be free. */
  readonly occupied: ReadonlySet<string>;
}

/**
 * Lists the skill folders in a runtime root the way the runtime does: `SKILL.md` folders down to
 * the root's depth, hidden entries skipped. Each level is listed with the kernel's one folder
 * listing, so links are followed only while they stay inside the root; one leading out is listed
 * with no hash, so it can never be taken for a copy of anything. Reads only frontmatter now;
 * bundles are hashed when asked, or known by the stamps `stamps` kept of them.
 */
export function scanRuntimeRoot(root: DiscoveryRoot, stamps: BundleStampCache = BundleStampCache.none()): RootContents {
  const exists = isDirectory(root.dir);
  if (!exists) return { exists: false, skills: [], occupied: new Set() };
  const skills: ScannedSkill[] = [];
  const occupied = new Set<string>();
  const visit = (dir: string, prefix: string, depth: number): void => {
    let listing: FolderListing | null;
    try {
      listing = listFolderInside(root.dir, dir);
    } catch {
      return;
    }
    if (listing === null) return;
    if (prefix === '') for (const name of listing.names) if (!name.startsWith('.')) occupied.add(name);
    for (const { name, isDirectory: isFolder, realPath, refusal } of listing.entries) {
      const full = path.join(dir, name);
      const entry = prefix === '' ? name : `${prefix}/${name}`;
      if (refusal !== undefined) {
        skills.push(unreadableSkill(full, entry, name, 'it is a link leading outside the root; Loadout does not follow it'));
        continue;
      }
      if (!isFolder) continue;
      const realDir = realPath ?? full;
      // A copy known by its stamps, of a bundle whose text the plan read: neither read again.
      const known = realPath === undefined ? stamps.knownCopy(root.dir, full) : null;
      if (known !== null) skills.push(knownScannedSkill(full, entry, known.bundle.hash, skillFileFacts(known.text, name, false)));
      else if (isFile(path.join(realDir, SKILL_FILE))) skills.push(readScannedSkill(root.dir, full, entry, realDir, stamps));
      // A folder known by stamps that hold, none of a folder below it, has no folder below it (one
      // made since would have moved its stamp), so no skill nested in it: it is not listed again.
      if (depth < root.depth && (known === null || holdsFolder(known.bundle))) visit(full, entry, depth + 1);
    }
  };
  visit(root.dir, '', 1);
  return { exists, skills, occupied };
}

/** What Loadout's bounded reading makes of a `SKILL.md` text: its frontmatter, or why it refuses it. */
export interface SkillFileReading {
  /** Null when it has none a runtime can read (none at all, or refused). */
  readonly frontmatter: SkillFileFacts['frontmatter'];
  readonly refusal: DocumentRefusedError | null;
}

/** Each text read once, for the runtimes' facts and the Agent Skills rules alike; shared, never changed. */
const readings = new TextMemo<SkillFileReading>((text) => {
  try {
    const document = parseMarkdown(text, SKILL_FILE);
    return { frontmatter: document.hasFrontmatter ? document.frontmatter : null, refusal: null };
  } catch (error) {
    // A runtime cannot read its frontmatter either; the folder still occupies its name.
    if (!(error instanceof DocumentRefusedError)) throw error;
    return { frontmatter: null, refusal: error };
  }
});

/** What Loadout's bounded reading makes of `text` (see {@link SkillFileReading}). */
export function readSkillFile(text: string): SkillFileReading {
  return readings.get(text);
}

/**
 * Takes what the session's scan read from `text` (its frontmatter, null when it has none; the scan
 * refuses what this reading refuses, so it read it without a refusal) as this reading of it: the
 * same text is not parsed twice in one command.
 */
export function knownSkillFile(text: string, frontmatter: SkillFileReading['frontmatter']): void {
  readings.keep(text, { frontmatter, refusal: null });
}

/** What a runtime looks at in one `SKILL.md` text: its frontmatter and how it starts. */
export function skillFileFacts(text: string, folderName: string, skillFileIsLink: boolean): SkillFileFacts {
  return { folderName, frontmatter: readings.get(text).frontmatter, startsWithFence: text.startsWith('---'), skillFileIsLink };
}

function readSkillFileFacts(rootDir: string, file: string, folderName: string): SkillFileFacts {
  const skillFileIsLink = trackedFs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() === true;
  let text = '';
  try {
    text = readTextInside(rootDir, file) ?? '';
  } catch (error) {
    if (!(error instanceof DocumentRefusedError)) throw error;
  }
  return skillFileFacts(text, folderName, skillFileIsLink);
}

function readScannedSkill(rootDir: string, dir: string, entry: string, realDir: string, stamps: BundleStampCache): ScannedSkill {
  const facts = readSkillFileFacts(rootDir, path.join(dir, SKILL_FILE), path.basename(dir));
  let computed = false;
  let hash: string | null = null;
  let problem: string | null = null;
  const compute = (): void => {
    if (computed) return;
    computed = true;
    try {
      hash = stamps.bundle(rootDir, dir)?.hash ?? null;
      if (hash === null) problem = 'it disappeared while being read';
    } catch (error) {
      if (!(error instanceof DocumentRefusedError)) throw error;
      problem = `it cannot be read as a skill (${error.code})`;
    }
  };
  return {
    dir,
    entry,
    name: listedSkillName(facts),
    facts,
    realDir,
    hash: () => {
      compute();
      return hash;
    },
    problem: () => {
      compute();
      return problem;
    },
  };
}

function knownScannedSkill(dir: string, entry: string, hash: string, facts: SkillFileFacts): ScannedSkill {
  return { dir, entry, name: listedSkillName(facts), facts, realDir: dir, hash: () => hash, problem: () => null };
}

function unreadableSkill(dir: string, entry: string, folderName: string, why: string): ScannedSkill {
  return {
    dir,
    entry,
    name: folderName,
    facts: { folderName, frontmatter: null, startsWithFence: false, skillFileIsLink: false },
    realDir: null,
    hash: () => null,
    problem: () => why,
  };
}

/** Whether a bundle's stamps name a folder below it; true when it has none (then nothing is known of it). */
function holdsFolder(bundle: SkillBundle): boolean {
  if (bundle.stamps === null) return true;
  for (const [relative, stamp] of Object.entries(bundle.stamps.files)) if (relative !== '' && isFolderStamp(stamp)) return true;
  return false;
}

function isDirectory(target: string): boolean {
  return trackedFs.statSync(target, { throwIfNoEntry: false })?.isDirectory() === true;
}

function isFile(target: string): boolean {
  return trackedFs.statSync(target, { throwIfNoEntry: false })?.isFile() === true;
}
