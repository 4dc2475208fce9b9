import { createHash } from 'node:crypto';
import { InvalidInputError, NotFoundError, isLoadoutError } from '@loadout/files';
import { parseMarkdown, readTextInside } from '@loadout/kernel';
import type { SkillRecord } from '@loadout/skills';
import { paginate } from './paging.js';
import { decodeSegment } from './resourceUris.js';
import type { SessionExposure } from './SessionExposure.js';
import { rootOf } from './sessionRoots.js';
import { listSkillFiles, readSkillFileBytes } from './skillFiles.js';
import { skillFileUri, skillManifestUri, skillPathOf } from './skillPaths.js';

/**
 * The MCP Skills extension (SEP-2640, `io.modelcontextprotocol/skills`) as plain functions of a
 * session's exposure: request params in, result out, refusals as coded Loadout errors. Nothing
 * here knows the SDK; `extensionMethods.ts` registers it on a server.
 */
export const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';

/** How many skill entries one `skills/list` page holds; an entry carries every file's digest. */
export const SKILLS_PAGE_SIZE = 100;
/** The extension's per-skill limits: a skill past either is not served through it. */
export const MAX_SKILL_RESOURCES = 512;
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;

const MANIFEST = 'SKILL.md';
const SCHEME = 'skill://';

/** One file of a served skill, as its entry lists it. */
export interface SkillResourceEntry {
  readonly uri: string;
  readonly digest: string;
  readonly size: number;
}

/** A skill as `skills/list` and `skills/get` describe it. */
export interface SkillEntry {
  readonly uri: string;
  readonly frontmatter: Readonly<Record<string, unknown>>;
  readonly resources: readonly SkillResourceEntry[];
}

export interface ListSkillsResult {
  readonly skills: readonly SkillEntry[];
  readonly nextCursor?: string;
}

export interface GetSkillResult {
  readonly skill: SkillEntry;
}

/** A skills request whose params are not what the extension defines. */
export class SkillsRequestInvalidError extends InvalidInputError {
  constructor(reason: string) {
    super('SKILLS_REQUEST_INVALID', `skills request: ${reason}`);
  }
}

/** A `skills/get` for a URI that names no skill this session serves through the extension. */
export class SkillNotFoundError extends NotFoundError {
  constructor(uri: string) {
    super('SKILL_NOT_FOUND', `no skill of this session is served at ${uri.length > 200 ? `${uri.slice(0, 200)}…` : uri}`);
  }
}

/** A skill the extension serves: its record and where it lives in the `skill://` namespace. */
interface ServedSkill {
  readonly path: string;
  readonly record: SkillRecord;
}

/** The served skills of one exposure, and their entries once made (null: found unservable when read). */
interface SkillCatalog {
  readonly served: readonly ServedSkill[];
  readonly byPath: ReadonlyMap<string, ServedSkill>;
  readonly entries: Map<ServedSkill, SkillEntry | null>;
}

/**
 * Kept per exposure: an exposure stands for one state of the workspace (its change stamp), so
 * the entries (digests included) stay right until the next change makes a new exposure.
 */
const catalogs = new WeakMap<SessionExposure, SkillCatalog>();

function catalogOf(exposure: SessionExposure): SkillCatalog {
  let catalog = catalogs.get(exposure);
  if (catalog === undefined) {
    const served: ServedSkill[] = [];
    const byPath = new Map<string, ServedSkill>();
    for (const record of exposure.session.recordsOf<SkillRecord>('skill')) {
      const path = skillPathOf(record);
      if (path === null || byPath.has(path)) continue;
      const skill = { path, record };
      served.push(skill);
      byPath.set(path, skill);
    }
    catalog = { served, byPath, entries: new Map() };
    catalogs.set(exposure, catalog);
  }
  return catalog;
}

/** `skills/list`: one page of the served skills' entries, in the session's order. */
export function listSkills(exposure: SessionExposure, params: unknown): ListSkillsResult {
  const cursor = optionalString(params, 'cursor');
  const catalog = catalogOf(exposure);
  const page = paginate(catalog.served, cursor, SKILLS_PAGE_SIZE);
  const skills: SkillEntry[] = [];
  for (const skill of page.items) {
    const entry = entryOf(exposure, catalog, skill);
    if (entry !== null) skills.push(entry);
  }
  return { skills, ...page.next };
}

/** `skills/get`: the entry of the skill whose manifest `params.uri` names. */
export function getSkill(exposure: SessionExposure, params: unknown): GetSkillResult {
  const uri = optionalString(params, 'uri');
  if (uri === undefined) throw new SkillsRequestInvalidError("params.uri (the URI of a skill's SKILL.md) is required");
  const catalog = catalogOf(exposure);
  const found =
    uri.startsWith(SCHEME) && uri.endsWith(`/${MANIFEST}`)
      ? catalog.byPath.get(uri.slice(SCHEME.length, -(MANIFEST.length + 1)))
      : undefined;
  const entry = found === undefined ? null : entryOf(exposure, catalog, found);
  if (entry === null) throw new SkillNotFoundError(uri);
  return { skill: entry };
}

/**
 * The served skill and file a `skill://<skill-path>/<file-path>` URI names, or null when it names
 * none (it may still be one of Loadout's own `skill://<id>/…` URIs). A plugin's two-segment path
 * is looked for first. The file path's segments are checked as every resource URI's are.
 */
export function resolveSkillFile(
  exposure: SessionExposure,
  uri: string,
): { record: SkillRecord; segments: string[]; manifest: boolean } | null {
  if (!uri.startsWith(SCHEME)) return null;
  const parts = uri.slice(SCHEME.length).split('/');
  const catalog = catalogOf(exposure);
  for (const depth of [2, 1]) {
    if (parts.length <= depth) continue;
    const skill = catalog.byPath.get(parts.slice(0, depth).join('/'));
    if (skill === undefined) continue;
    const segments = parts.slice(depth).map((segment) => decodeSegment(segment, uri));
    return { record: skill.record, segments, manifest: segments.length === 1 && segments[0] === MANIFEST };
  }
  return null;
}

/**
 * A served skill's entry, made on first need and kept with the exposure: its frontmatter as
 * written, and every file it serves with its digest and size. Null when its `SKILL.md` no longer
 * reads as the record said (gone, refused, frontmatter name changed) or the skill is past the
 * extension's limits: such a skill is left out rather than described wrongly.
 */
function entryOf(exposure: SessionExposure, catalog: SkillCatalog, skill: ServedSkill): SkillEntry | null {
  if (catalog.entries.has(skill)) return catalog.entries.get(skill) ?? null;
  let entry: SkillEntry | null;
  try {
    entry = makeEntry(exposure, skill);
  } catch (error) {
    if (!isLoadoutError(error)) throw error;
    entry = null;
  }
  catalog.entries.set(skill, entry);
  return entry;
}

function makeEntry(exposure: SessionExposure, { path, record }: ServedSkill): SkillEntry | null {
  const text = readTextInside(rootOf(exposure.session, record), record.path);
  if (text === null) return null;
  const { frontmatter } = parseMarkdown(text, record.path);
  if (frontmatter.name !== record.name || typeof frontmatter.description !== 'string' || frontmatter.description === '') return null;
  const manifest = Buffer.from(text, 'utf8');
  const uri = skillManifestUri(path);
  const resources: SkillResourceEntry[] = [{ uri, digest: digestOf(manifest), size: manifest.length }];
  let total = manifest.length;
  const files = listSkillFiles(record, MAX_SKILL_RESOURCES);
  if (files.length >= MAX_SKILL_RESOURCES) return null;
  for (const relative of files) {
    const fileUri = skillFileUri(path, relative);
    let bytes: Buffer;
    try {
      bytes = readSkillFileBytes(record, relative.split('/'), fileUri).bytes;
    } catch (error) {
      // A file a read would refuse (too large, gone since the listing) is not one the skill serves.
      if (isLoadoutError(error)) continue;
      throw error;
    }
    total += bytes.length;
    if (total > MAX_SKILL_BYTES) return null;
    resources.push({ uri: fileUri, digest: digestOf(bytes), size: bytes.length });
  }
  // The frontmatter as JSON: what YAML gave, with nothing JSON cannot carry.
  return { uri, frontmatter: JSON.parse(JSON.stringify(frontmatter)) as Record<string, unknown>, resources };
}

function digestOf(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** `params[key]` when it is a string, undefined when absent; anything else is refused. */
function optionalString(params: unknown, key: string): string | undefined {
  if (params === undefined || params === null) return undefined;
  if (typeof params !== 'object' || Array.isArray(params)) throw new SkillsRequestInvalidError('params must be an object');
  const value = (params as Record<string, unknown>)[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new SkillsRequestInvalidError(`params.${key} must be a string`);
  return value;
}
