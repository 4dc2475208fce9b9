import fs from 'node:fs';
import { trackedFs } from './ReadLog.js';

/**
 * The synchronous file-system calls a reading of documents makes that depend on a path: what a
 * reader looks at goes through one of these and nothing else, so a caller can see every path a
 * reading depended on by handing a reader that notes each before it delegates (the plugins'
 * layout cache does). Each behaves as its `node:fs` namesake: it throws the file system's error.
 */
export interface FileReader {
  lstat(file: string): fs.Stats;
  stat(file: string): fs.Stats;
  /** The names in a folder. */
  readdir(folder: string): string[];
  /** The entries of a folder with their types (links not followed). */
  readdirEntries(folder: string): fs.Dirent[];
  /** `fs.realpathSync`: links resolved one by one. */
  realpath(file: string): string;
  /** `fs.realpathSync.native`: the system's own resolution, in one call. */
  realpathNative(file: string): string;
  /** Opens a file; the descriptor's own calls (`fstat`, `read`, `close`) depend on no path. */
  open(file: string, flags: number): number;
}

/** The plain `node:fs` reader, the default of every reading that takes one. */
export const nodeFileReader: FileReader = {
  lstat: (file) => trackedFs.lstatSync(file),
  stat: (file) => trackedFs.statSync(file),
  readdir: (folder) => trackedFs.readdirSync(folder),
  readdirEntries: (folder) => trackedFs.readdirSync(folder, { withFileTypes: true }),
  realpath: (file) => trackedFs.realpathSync(file),
  realpathNative: (file) => trackedFs.realpathSync.native(file),
  open: (file, flags) => trackedFs.openSync(file, flags),
};
