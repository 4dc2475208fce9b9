import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MAX_SPOOL_LINE_BYTES, usageSpoolLineSchema } from './usageSpoolLine.js';
import type { UsageEvent, UsageStore } from './UsageStore.js';
import { trackedFs } from '@loadout/files';

/** What one ingest took in. Nothing in a spool file is ever fatal: what cannot be used is counted and said. */
export interface SpoolIngestReport {
  /** Spool files taken in (and deleted). */
  readonly files: number;
  /** Events stored in the ledger. */
  readonly recorded: number;
  /** Lines that are not a version-1 spool line (not JSON, a wrong shape, too long): skipped. */
  readonly invalid: number;
  /** Lines of the right shape whose name, runtime or project is absurd (too long, control characters): dropped. */
  readonly dropped: number;
  /** The first few reasons, one per line, `file:line: why`. */
  readonly problems: readonly string[];
}

/** The prefix of a spool file taken for ingest: it no longer ends `.jsonl`, so no other ingest takes it. */
const TAKEN_PREFIX = '.taken-';
/**
 * How long a writer that opened a spool file just before it was taken gets to finish its one
 * write before the file is read: the hook opens, writes one line and closes, in well under this.
 */
const WRITER_GRACE_MS = 30;
/** A taken file this old was left by an ingest that died before deleting it: it is taken in again. */
const ABANDONED_AFTER_MS = 10 * 60 * 1000;
/** The most of one spool file read in one ingest; the rest of a larger file is counted invalid as one problem. */
export const MAX_SPOOL_FILE_BYTES = 16 * 1024 * 1024;
const MAX_PROBLEMS = 20;

/**
 * Takes every spool file in `spoolDir` into the ledger: each is renamed to a private name (so the
 * hook's next line starts a new file, and a second ingest never takes the same one), read, its
 * valid lines stored in one transaction, then deleted. A file whose store fails is put back under
 * a new spool name, to be taken again. Lines are data: parsed as JSON and checked against
 * {@link usageSpoolLineSchema}, never run. Symbolic links and other non-files are passed over.
 */
export async function ingestSpool(
  spoolDir: string,
  store: UsageStore,
  options: { readonly maxFileBytes?: number } = {},
): Promise<SpoolIngestReport> {
  const tally = { files: 0, recorded: 0, invalid: 0, dropped: 0, problems: [] as string[] };
  const taken = takeSpoolFiles(spoolDir, Date.now(), tally.problems);
  if (taken.length === 0) return tally;
  await new Promise((done) => setTimeout(done, WRITER_GRACE_MS));
  for (const file of taken) {
    const read = readSpoolFile(file.taken, file.name, options.maxFileBytes ?? MAX_SPOOL_FILE_BYTES);
    try {
      await store.record(read.events);
    } catch (error) {
      trackedFs.renameSync(file.taken, path.join(spoolDir, `retry-${randomBytes(6).toString('hex')}.jsonl`));
      throw error;
    }
    trackedFs.rmSync(file.taken, { force: true });
    tally.files += 1;
    tally.recorded += read.events.length;
    tally.invalid += read.invalid;
    tally.dropped += read.dropped;
    for (const problem of read.problems) if (tally.problems.length < MAX_PROBLEMS) tally.problems.push(problem);
  }
  return tally;
}

interface TakenFile {
  /** The name it had in the spool, for problems. */
  readonly name: string;
  readonly taken: string;
}

/** Renames each spool file (and each taken file an ingest abandoned) to a fresh private name, and says which. */
function takeSpoolFiles(spoolDir: string, now: number, problems: string[]): TakenFile[] {
  let entries: fs.Dirent[];
  try {
    if (!trackedFs.lstatSync(spoolDir).isDirectory()) {
      problems.push(`${spoolDir} is not a folder; nothing was taken in`);
      return [];
    }
    entries = trackedFs.readdirSync(spoolDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const taken: TakenFile[] = [];
  // Oldest name first, so what a runtime wrote first is taken first (and problems read in a stable order).
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const abandoned = entry.name.startsWith(TAKEN_PREFIX);
    if (!abandoned && !entry.name.endsWith('.jsonl')) continue;
    const from = path.join(spoolDir, entry.name);
    if (!entry.isFile()) {
      if (problems.length < MAX_PROBLEMS) problems.push(`${entry.name}: not a regular file; passed over`);
      continue;
    }
    if (abandoned && now - statMtime(from) < ABANDONED_AFTER_MS) continue;
    const to = path.join(spoolDir, `${TAKEN_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`);
    try {
      trackedFs.renameSync(from, to);
    } catch (error) {
      // Another ingest took it first.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    taken.push({ name: entry.name, taken: to });
  }
  return taken;
}

function statMtime(file: string): number {
  try {
    return trackedFs.statSync(file).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

interface ReadSpool {
  events: UsageEvent[];
  invalid: number;
  dropped: number;
  problems: string[];
}

/** The events of one taken spool file, and what of it could not be used. */
function readSpoolFile(file: string, name: string, maxBytes: number): ReadSpool {
  const read: ReadSpool = { events: [], invalid: 0, dropped: 0, problems: [] };
  const handle = trackedFs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  let bytes: Buffer;
  try {
    const size = fs.fstatSync(handle).size;
    bytes = Buffer.alloc(Math.min(size, maxBytes));
    const got = fs.readSync(handle, bytes, 0, bytes.length, 0);
    bytes = bytes.subarray(0, got);
    if (size > maxBytes) {
      read.invalid += 1;
      read.problems.push(`${name}: only its first ${maxBytes} bytes were read; the rest was skipped`);
    }
  } finally {
    fs.closeSync(handle);
  }
  const lines = bytes.toString('utf8').split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const why = lineProblem(line, read.events);
    if (why === null) return;
    if (why.dropped) read.dropped += 1;
    else read.invalid += 1;
    if (read.problems.length < MAX_PROBLEMS) read.problems.push(`${name}:${index + 1}: ${why.message}`);
  });
  return read;
}

/** Adds the line's event to `events`, or says why it cannot be: invalid, or of the right shape but absurd (dropped). */
function lineProblem(line: string, events: UsageEvent[]): { message: string; dropped: boolean } | null {
  if (Buffer.byteLength(line) > MAX_SPOOL_LINE_BYTES) return { message: `longer than ${MAX_SPOOL_LINE_BYTES} bytes`, dropped: false };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { message: 'not JSON', dropped: false };
  }
  const parsed = usageSpoolLineSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path[0];
    // The right shape with an absurd value (a name too long, a control character) is dropped; a wrong shape is invalid.
    const absurd = issue?.code === 'too_big' || issue?.code === 'custom';
    return { message: `${field === undefined ? '' : `${String(field)}: `}${issue?.message ?? 'not a spool line'}`, dropped: absurd };
  }
  const line1 = parsed.data;
  events.push({
    at: Date.parse(line1.at),
    runtime: line1.runtime,
    project: line1.project === null ? null : path.resolve(line1.project),
    kind: line1.kind,
    name: line1.name,
    server: line1.server ?? null,
    event: line1.event,
    session: line1.session ?? null,
    source: 'hook',
  });
  return null;
}
