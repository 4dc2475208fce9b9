import fs from 'node:fs';
import path from 'node:path';
import { asText, isTextType, mimeTypeOf } from './skillFiles.js';
import { trackedFs } from '@loadout/files';

/** The most files one run hands over; a folder holding more is refused whole. */
export const MAX_OUTPUT_FILES = 16;
/** The largest one file may be. */
export const MAX_OUTPUT_FILE_BYTES = 4 * 1024 * 1024;
/** The most all of one run's files may weigh together (base64 makes them a third larger in the answer). */
export const MAX_OUTPUT_TOTAL_BYTES = 8 * 1024 * 1024;

/** An image a task wrote, as MCP's image content. */
export interface ImageContent {
  readonly type: 'image';
  readonly data: string;
  readonly mimeType: string;
}

/** A sound a task wrote, as MCP's audio content. */
export interface AudioContent {
  readonly type: 'audio';
  readonly data: string;
  readonly mimeType: string;
}

/** Any other file a task wrote, as MCP's embedded resource content: text when it reads as text, else base64. */
export interface EmbeddedResourceContent {
  readonly type: 'resource';
  readonly resource: { readonly uri: string; readonly mimeType: string } & ({ readonly text: string } | { readonly blob: string });
}

export type OutputFileContent = ImageContent | AudioContent | EmbeddedResourceContent;

/** The raster image types an image content may carry, each known by its first bytes. */
const IMAGE_SIGNATURES: readonly { readonly mimeType: string; readonly matches: (head: Buffer) => boolean }[] = [
  { mimeType: 'image/png', matches: (head) => head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { mimeType: 'image/jpeg', matches: (head) => head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff },
  { mimeType: 'image/gif', matches: (head) => ['GIF87a', 'GIF89a'].includes(head.subarray(0, 6).toString('latin1')) },
  {
    mimeType: 'image/webp',
    matches: (head) => head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP',
  },
];
/** The sound types an audio content may carry, each known by its first bytes. */
const AUDIO_SIGNATURES: readonly { readonly mimeType: string; readonly matches: (head: Buffer) => boolean }[] = [
  {
    mimeType: 'audio/wav',
    matches: (head) => head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WAVE',
  },
  // An ID3 tag, or the first bytes of an MPEG-1 or MPEG-2 layer III frame (the common MP3 headers).
  {
    mimeType: 'audio/mpeg',
    matches: (head) => head.subarray(0, 3).toString('latin1') === 'ID3' || (head[0] === 0xff && [0xfb, 0xf3, 0xf2].includes(head[1] ?? 0)),
  },
  { mimeType: 'audio/ogg', matches: (head) => head.subarray(0, 4).toString('latin1') === 'OggS' },
  { mimeType: 'audio/flac', matches: (head) => head.subarray(0, 4).toString('latin1') === 'fLaC' },
];
const PDF_SIGNATURE = '%PDF-';

/**
 * The files a task left in its output folder, as MCP content, checked here at the boundary: only
 * regular files directly in the folder (hidden names skipped), each opened without following a
 * link so nothing outside the folder is ever read; at most {@link MAX_OUTPUT_FILES}, each at most
 * {@link MAX_OUTPUT_FILE_BYTES}, all together at most {@link MAX_OUTPUT_TOTAL_BYTES}. A file's type
 * comes from its bytes where they say (PNG, JPEG, GIF, WebP; WAV, MP3, Ogg, FLAC; PDF), else from its
 * extension; a file whose name claims an image or a sound its bytes are not is refused. Raster images
 * become image content, sounds audio content, everything else an embedded resource under
 * `loadout://jobs/<id>/output/<name>`. In name order.
 *
 * @returns the content, or the problem that refuses the whole output (nothing of it is handed over)
 */
export function readOutputFiles(folder: string, jobId: number): { content: OutputFileContent[] } | { problem: string } {
  let entries: fs.Dirent[];
  try {
    entries = trackedFs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return { content: [] }; // no folder: the run wrote nothing for its caller
  }
  const visible = entries.filter((entry) => !entry.name.startsWith('.')).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (visible.length > MAX_OUTPUT_FILES)
    return { problem: `its output folder holds ${visible.length} files; at most ${MAX_OUTPUT_FILES} are handed over` };
  const content: OutputFileContent[] = [];
  let total = 0;
  for (const entry of visible) {
    const name = entry.name;
    if (!entry.isFile()) return { problem: `output "${shown(name)}" is not a regular file (links and folders are not handed over)` };
    const bytes = readRegular(path.join(folder, name));
    if ('problem' in bytes) return { problem: `output "${shown(name)}" ${bytes.problem}` };
    total += bytes.data.length;
    if (total > MAX_OUTPUT_TOTAL_BYTES) return { problem: `its output files weigh more than ${MAX_OUTPUT_TOTAL_BYTES} bytes together` };
    const typed = contentOf(name, bytes.data, jobId);
    if ('problem' in typed) return { problem: `output "${shown(name)}" ${typed.problem}` };
    content.push(typed.content);
  }
  return { content };
}

/** A regular file's bytes, opened without following a link and checked on the open descriptor. */
function readRegular(file: string): { data: Buffer } | { problem: string } {
  let fd: number;
  try {
    fd = trackedFs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'ELOOP' ? 'is a link (links are not handed over)' : `cannot be read (${code ?? 'error'})` };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { problem: 'is not a regular file' };
    if (stat.size > MAX_OUTPUT_FILE_BYTES) return { problem: `is larger than ${MAX_OUTPUT_FILE_BYTES} bytes` };
    const data = Buffer.alloc(stat.size);
    let read = 0;
    while (read < data.length) {
      const got = fs.readSync(fd, data, read, data.length - read, read);
      if (got === 0) break;
      read += got;
    }
    return { data: data.subarray(0, read) };
  } finally {
    fs.closeSync(fd);
  }
}

function contentOf(name: string, data: Buffer, jobId: number): { content: OutputFileContent } | { problem: string } {
  const sniffed = IMAGE_SIGNATURES.find((signature) => signature.matches(data))?.mimeType ?? null;
  const declared = mimeTypeOf(name);
  if (sniffed !== null) return { content: { type: 'image', data: data.toString('base64'), mimeType: sniffed } };
  if (declared !== null && IMAGE_SIGNATURES.some((signature) => signature.mimeType === declared))
    return { problem: `is named as ${declared} but its bytes are not one` };
  const sound = AUDIO_SIGNATURES.find((signature) => signature.matches(data))?.mimeType ?? null;
  if (sound !== null) return { content: { type: 'audio', data: data.toString('base64'), mimeType: sound } };
  if (declared !== null && AUDIO_SIGNATURES.some((signature) => signature.mimeType === declared))
    return { problem: `is named as ${declared} but its bytes are not one` };
  const isPdf = data.subarray(0, PDF_SIGNATURE.length).toString('latin1') === PDF_SIGNATURE;
  if (declared === 'application/pdf' && !isPdf) return { problem: 'is named as application/pdf but its bytes are not one' };
  const mimeType = isPdf ? 'application/pdf' : declared;
  const uri = `loadout://jobs/${jobId}/output/${encodeURIComponent(name)}`;
  const text = mimeType === null || isTextType(mimeType) ? asText(data) : null;
  if (text !== null) return { content: { type: 'resource', resource: { uri, mimeType: mimeType ?? 'text/plain', text } } };
  return {
    content: { type: 'resource', resource: { uri, mimeType: mimeType ?? 'application/octet-stream', blob: data.toString('base64') } },
  };
}

/** A file name as an error shows it: bounded, control characters escaped. */
function shown(name: string): string {
  const clean = JSON.stringify(name).slice(1, -1);
  return clean.length > 120 ? `${clean.slice(0, 120)}…` : clean;
}
