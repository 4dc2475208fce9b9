// Temporary file trees for tests: every package's tests make their folders with these.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A file tree described inline: a string is a file's content, an object a folder. */
export interface TreeDescription {
  readonly [name: string]: string | Buffer | TreeDescription;
}

/** Writes `tree` under `dir`, creating folders as needed. */
export function writeTree(dir: string, tree: TreeDescription): void {
  for (const [name, content] of Object.entries(tree)) {
    const target = path.join(dir, name);
    if (typeof content === 'string' || Buffer.isBuffer(content)) {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, content);
    } else {
      fs.mkdirSync(target, { recursive: true });
      writeTree(target, content);
    }
  }
}

const made: string[] = [];

/** A fresh temporary folder holding `tree`; removed by {@link removeTestdirs}. */
export function testdir(tree: TreeDescription = {}): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-test-')));
  made.push(dir);
  writeTree(dir, tree);
  return dir;
}

/** Removes every folder {@link testdir} made in this process. Call it from `afterEach`. */
export function removeTestdirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
export { type FsOracle, watchFs } from './fsOracle.js';
