import fs from 'node:fs';
import path from 'node:path';
import { MAX_DOCUMENT_BYTES } from '@loadout/kernel';
import { DocumentRefusedError, isInside, realpathInside, trackedFs } from '@loadout/files';
import type { SkillRecord } from '@loadout/skills';
import { ResourceNotFoundError, ResourceRefusedError } from './McpErrors.js';

/** How many files of one skill are listed; a skill folder holding more lists the first ones by name. */
export const MAX_LISTED_FILES = 200;
/** How deep below the skill folder files are listed. */
const MAX_DEPTH = 6;

const MIME_TYPES: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.toml': 'application/toml',
  '.xml': 'application/xml',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.cjs': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.py': 'text/x-python',
  '.sh': 'text/x-shellscript',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
  '.flac': 'audio/flac',
};

/** The MIME type a file is served with, by its extension; null when the extension says nothing. */
export function mimeTypeOf(file: string): string | null {
  return MIME_TYPES[path.extname(file).toLowerCase()] ?? null;
}

/**
 * The other files of a folder skill, as paths relative to its folder with `/` separators, sorted:
 * everything but its `SKILL.md`, hidden names and links that lead out of the folder, at most
 * `max` ({@link MAX_LISTED_FILES} unless given). Read now, every time: a file added a moment ago is listed.
 */
export function listSkillFiles(skill: SkillRecord, max = MAX_LISTED_FILES): string[] {
  if (skill.folder === null) return [];
  const folder = skill.folder;
  // Needed only when a link is met: most skill folders hold none, and a listing is one syscall then.
  let realFolder: string | null = null;
  const found: string[] = [];
  const visited = new Set<string>();
  const walk = (dir: string, prefix: string, depth: number): void => {
    let entries: fs.Dirent[];
    try {
      entries = trackedFs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (found.length >= max) return;
      if (entry.name.startsWith('.')) continue;
      const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (relative === 'SKILL.md') continue;
      const full = path.join(dir, entry.name);
      let isFile = entry.isFile();
      let isDirectory = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        let real: string;
        try {
          realFolder ??= trackedFs.realpathSync.native(folder);
          real = trackedFs.realpathSync.native(full);
        } catch {
          continue;
        }
        if (!isInside(realFolder, real) || real === realFolder) continue;
        const stat = trackedFs.statSync(real);
        isFile = stat.isFile();
        isDirectory = stat.isDirectory() && !visited.has(real);
        if (isDirectory) visited.add(real);
      }
      if (isFile) found.push(relative);
      else if (isDirectory && depth < MAX_DEPTH) walk(full, relative, depth + 1);
    }
  };
  walk(folder, '', 1);
  return found;
}

/** A file of a skill as a resource's contents: text when it reads as text, else base64. */
export type SkillFileContents = { readonly text: string; readonly mimeType: string } | { readonly blob: string; readonly mimeType: string };

/**
 * Reads one file of a skill, given as the path segments of its URI (already decoded and free of
 * separators, `.` and `..`). Only a regular file inside the skill's folder is read: a hidden name,
 * a link whose target leaves the folder, or a file over {@link MAX_DOCUMENT_BYTES} is refused.
 */
export function readSkillFile(skill: SkillRecord, segments: readonly string[], uri: string): SkillFileContents {
  const { bytes, real } = readSkillFileBytes(skill, segments, uri);
  const declared = mimeTypeOf(real);
  const text = declared === null || isTextType(declared) ? asText(bytes) : null;
  if (text !== null) return { text, mimeType: declared ?? 'text/plain' };
  return { blob: bytes.toString('base64'), mimeType: declared ?? 'application/octet-stream' };
}

/**
 * The raw bytes of one file of a skill and its real path, under the same rules as
 * {@link readSkillFile}: what a digest of the file is made of is exactly what a read serves.
 */
export function readSkillFileBytes(skill: SkillRecord, segments: readonly string[], uri: string): { bytes: Buffer; real: string } {
  if (skill.folder === null) throw new ResourceNotFoundError(uri, `skill "${skill.id}" is a single file and has no other files`);
  if (segments.some((segment) => segment.startsWith('.'))) throw new ResourceRefusedError(uri, 'hidden files of a skill are not served');
  const file = path.join(skill.folder, ...segments);
  let real: string | null;
  try {
    real = realpathInside(skill.folder, file);
  } catch (error) {
    if (error instanceof DocumentRefusedError) throw new ResourceRefusedError(uri, 'it is a link that leads outside the skill folder');
    throw error;
  }
  if (real === null) throw new ResourceNotFoundError(uri, `skill "${skill.id}" has no file ${segments.join('/')}`);
  const stat = trackedFs.statSync(real);
  if (!stat.isFile()) throw new ResourceNotFoundError(uri, `${segments.join('/')} is not a file of skill "${skill.id}"`);
  if (stat.size > MAX_DOCUMENT_BYTES) throw new ResourceRefusedError(uri, `the file is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  return { bytes: trackedFs.readFileSync(real), real };
}

/** Whether a file of this MIME type is served as text (when its bytes read as text). */
export function isTextType(mimeType: string): boolean {
  return mimeType.startsWith('text/') || (mimeType.startsWith('application/') && !/pdf|zip/.test(mimeType)) || mimeType === 'image/svg+xml';
}

/** The bytes as UTF-8 text, or null when they are not text (invalid UTF-8 or a NUL byte). */
export function asText(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
