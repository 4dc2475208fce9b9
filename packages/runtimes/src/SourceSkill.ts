import path from 'node:path';
import { type Root, type Session } from '@loadout/kernel';
import { DocumentRefusedError, isInside, trackedFs } from '@loadout/files';
import { type AgentSkillBreak, agentSkillFolderBreaks, agentSkillName, RUNTIME_TOLERATED_RULES, type SkillRecord } from '@loadout/skills';
import type { SkillFileFacts, WriteTarget } from './RuntimeAdapter.js';
import type { ManifestSource } from './RuntimeManifest.js';
import { knownSkillFile, readSkillFile, skillFileFacts } from './scanRuntimeRoot.js';
import { TextMemo } from './TextMemo.js';
import type { BundleStampCache } from './BundleStampCache.js';
import type { SkillBundle } from './SkillBundle.js';
import { skillNameKey } from './skillNames.js';

/**
 * A Loadout skill one kind of runtime root should hold, read and judged once per plan: its bundle,
 * the folder name it takes in a runtime (its valid Agent Skills name, not its ASCII capability
 * id), and what keeps it out of every runtime.
 */
export interface SourceSkill {
  readonly record: SkillRecord;
  readonly target: WriteTarget;
  /** The folder (or single file) the skill lives in. */
  readonly sourceEntry: string;
  /** The real path of a folder skill, to recognise it where a runtime reads it in place. */
  readonly realFolder: string | null;
  readonly source: ManifestSource;
  /** The runtime folder name and listed name; null when the frontmatter name is not a valid Agent Skills name. */
  readonly folderName: string | null;
  /** The collision key of the name a runtime lists it under. */
  readonly key: string;
  readonly bundle: SkillBundle | null;
  /** Why the bundle cannot be read (the skill is then held: nothing about it changes). */
  readonly unreadable: string | null;
  /**
   * Agent Skills rules the folder would break that no runtime is known to tolerate: Loadout writes
   * such a folder nowhere.
   */
  readonly problems: readonly string[];
  /**
   * Agent Skills rules the folder breaks that real runtimes tolerate (extra fields, a long
   * description): it is written for every runtime whose adapter admits it, with a
   * `SKILL_NOT_PORTABLE` warning.
   */
  readonly notPortable: readonly string[];
  /** What runtimes look at, as the written `SKILL.md` would show it. */
  readonly facts: SkillFileFacts;
}

/** The root a record was read from, found among the session's roots. */
function sourceRootOf(record: SkillRecord, entry: string, session: Session): Root {
  return (
    session.roots.find((root) => root.level === record.level && root.plugin === record.plugin && isInside(root.dir, entry)) ??
    ({ dir: path.dirname(path.dirname(entry)), level: record.level, plugin: record.plugin, writable: false } satisfies Root)
  );
}

/**
 * Reads one wanted skill. Its bundle is known now (read, or known by its stamps): the plan needs the
 * hash and what the written SKILL.md says.
 */
export function readSourceSkill(record: SkillRecord, target: WriteTarget, session: Session, stamps: BundleStampCache): SourceSkill {
  const entry = record.folder ?? record.path;
  let bundle: SkillBundle | null = null;
  let unreadable: string | null = null;
  let text = '';
  let realFolder: string | null | undefined;
  // What the session's scan read of the SKILL.md, when it kept it: not read a second time while unchanged.
  const scanned = session.documents?.get(record.path);
  try {
    bundle = stamps.bundle(sourceRootOf(record, entry, session).dir, entry, scanned);
    if (bundle === null) unreadable = 'it disappeared while being read';
    text = bundle?.skillText() ?? '';
    // Nor parsed a second time: the scan read its frontmatter as the runtimes' reading does.
    if (scanned !== undefined && text === scanned.text) knownSkillFile(text, scanned.frontmatter);
    if (bundle !== null) stamps.notePaths(bundle);
  } catch (error) {
    if (!(error instanceof DocumentRefusedError)) throw error;
    unreadable = `${error.code}: ${error.message}`;
    bundle = null;
  }
  const facts = skillFileFacts(text, path.basename(entry), false);
  if (bundle !== null) stamps.noteText(bundle.hash, text, facts.frontmatter);
  const frontmatterName = facts.frontmatter?.name;
  const folderName = agentSkillName(frontmatterName);
  const breaks = bundle === null ? [] : folderBreaks(text, folderName ?? String(frontmatterName ?? record.id));
  return {
    record,
    target,
    sourceEntry: entry,
    get realFolder() {
      realFolder ??= record.folder === null ? null : realpathOrSelf(record.folder);
      return realFolder;
    },
    source: { id: record.id, level: record.level, plugin: record.plugin },
    folderName,
    key: skillNameKey(folderName ?? (typeof frontmatterName === 'string' && frontmatterName.trim() !== '' ? frontmatterName : record.id)),
    bundle,
    unreadable,
    problems: breaks.filter((problem) => !RUNTIME_TOLERATED_RULES.has(problem.rule)).map((problem) => problem.message),
    notPortable: breaks.filter((problem) => RUNTIME_TOLERATED_RULES.has(problem.rule)).map((problem) => problem.message),
    facts: folderName === null ? facts : { ...facts, folderName },
  };
}

/** What the Agent Skills rules say of a text under a folder name, by text and then name. */
const breaksByText = new TextMemo<Map<string, readonly AgentSkillBreak[]>>(() => new Map());

function folderBreaks(text: string, folderName: string): readonly AgentSkillBreak[] {
  const byName = breaksByText.get(text);
  let breaks = byName.get(folderName);
  if (breaks === undefined) {
    breaks = agentSkillFolderBreaks(text, folderName, readSkillFile(text).refusal);
    byName.set(folderName, breaks);
  }
  return breaks;
}

/** The real path of `target`, or the resolved path when it does not exist. */
export function realpathOrSelf(target: string): string {
  try {
    return trackedFs.realpathSync(target);
  } catch {
    return path.resolve(target);
  }
}

/**
 * The physical folder a path names: the real path of its longest existing part, then the rest, so
 * two spellings of one folder (a linked home, a trailing `..`) are one root even before it exists.
 * A link to something that does not exist yet (a committed `.claude/skills` leading to a
 * `~/.claude/skills` not made yet) counts as where it leads: writing through it would make that
 * folder. A loop of such links stops after as many hops as the system allows and names the link.
 */
export function physicalPath(target: string, hops = 0): string {
  const resolved = path.resolve(target);
  const rest: string[] = [];
  let current = resolved;
  for (;;) {
    try {
      return path.join(trackedFs.realpathSync(current), ...rest.reverse());
    } catch {
      const dangling = hops < MAX_LINK_HOPS ? danglingLinkTarget(current) : null;
      if (dangling !== null) return physicalPath(path.join(dangling, ...rest.reverse()), hops + 1);
      const parent = path.dirname(current);
      if (parent === current) return resolved;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/** How many links one path may lead through, as Linux allows (`ELOOP` beyond). */
const MAX_LINK_HOPS = 40;

/** Where a link at `file` leads, resolved against its folder; null when `file` is not a link. */
function danglingLinkTarget(file: string): string | null {
  try {
    return trackedFs.lstatSync(file).isSymbolicLink() ? path.resolve(path.dirname(file), trackedFs.readlinkSync(file)) : null;
  } catch {
    return null;
  }
}
