import path from 'node:path';
import { DocumentRefusedError } from '@loadout/files';

/**
 * The files one script may load, read from its text: for each reference, the paths it may mean,
 * in the order the runtime would try them (the first that exists is the one that runs).
 *
 * This over-approximates on purpose. A fingerprint that takes in a file nothing loads costs a
 * re-approval when that file changes; one that misses a loaded file lets new code run unseen. So
 * every relative path written anywhere in a script (an import, a `require`, a `source`, a
 * `readFileSync('./x')`, a comment) is a reference, and Python's `import` lines name their
 * sibling modules and packages. What no reading of the text can find is left out and documented:
 * a path computed at run time, a bare package name (`import 'lodash'`), a module found on a
 * search path the script does not name.
 */
export function fileReferences(file: string, text: string): string[][] {
  const dir = path.dirname(file);
  const references = new Map<string, string[]>();
  const add = (candidates: string[]): void => {
    const first = candidates[0] as string;
    if (references.has(first)) return;
    if (references.size >= MAX_REFERENCES) {
      throw new DocumentRefusedError(
        'RUNNABLE_TOO_MANY_REFERENCES',
        `${path.basename(file)}: names more than ${MAX_REFERENCES} relative paths; what it loads cannot be followed, so it cannot be approved`,
      );
    }
    references.set(first, candidates);
  };
  for (const match of text.matchAll(RELATIVE_PATH)) add(scriptCandidates(path.resolve(dir, stripQuery(match[0]))));
  if (PYTHON.test(file) || /^#![^\n]*python/.test(text)) pythonReferences(dir, text).forEach(add);
  return [...references.values()];
}

/**
 * The most distinct paths one script may name. Each is looked for at every session (its
 * candidates' stats), so a script naming a million costs every session open; more than this and
 * the capability is held with why rather than followed partly.
 */
export const MAX_REFERENCES = 4096;

/** The extensions whose text is read for references, besides any file that starts with `#!`. */
const SCRIPT = /\.(?:[cm]?js|[cm]?ts|jsx|tsx|py|sh|bash|zsh|ksh|fish|rb|pl|pm|php|lua|ps1|r|jl)$/i;
const PYTHON = /\.py$/i;

/** Whether `file`, starting with `head`, is a script whose text may name other files it runs. */
export function isScript(file: string, head: Buffer): boolean {
  return SCRIPT.test(file) || (head[0] === 0x23 && head[1] === 0x21);
}

/**
 * A path written relative to the script: `./x`, `../lib/x.mjs`, anywhere in the text, not inside a
 * longer name (`a.b/c` is not one, `$(dirname "$0")/../lib.sh` is). Linear: no nested repetition.
 */
const RELATIVE_PATH = /(?<![\w.-])\.{1,2}\/[\w.@+~-][\w.@+~/-]{0,1023}/g;

/** A specifier's `?query` or `#hash` (an ESM loader's, or a URL's) is not part of the file name. */
function stripQuery(specifier: string): string {
  return specifier.replace(/[?#].*$/, '');
}

/** What Node, a TypeScript loader or a bundler would try for a relative specifier, in order. */
function scriptCandidates(target: string): string[] {
  const candidates = [target];
  const swapped = TS_FOR_JS[path.extname(target)];
  if (swapped !== undefined) candidates.push(target.slice(0, -path.extname(target).length) + swapped);
  for (const extension of JS_EXTENSIONS) candidates.push(target + extension);
  for (const extension of JS_EXTENSIONS) candidates.push(path.join(target, `index${extension}`));
  return candidates;
}

const JS_EXTENSIONS = ['.mjs', '.js', '.cjs', '.ts', '.mts', '.cts', '.jsx', '.tsx', '.json', '.node'];
/** TypeScript sources import their siblings by the name they will have once compiled. */
const TS_FOR_JS: Readonly<Record<string, string>> = { '.js': '.ts', '.mjs': '.mts', '.cjs': '.cts', '.jsx': '.tsx' };

/** `from .a.b import c`, `from pkg import x`, `import sibling, other.sub` at the start of a line. */
const PYTHON_FROM = /^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\(?([\w \t,*]*)/gm;
const PYTHON_IMPORT = /^[ \t]*import[ \t]+([\w \t,.]+)/gm;

/**
 * The modules a Python script imports that may be files beside it: relative imports from its
 * folder (`from . import x`, `from ..pkg import y`) and plain ones (`import helper`), which
 * Python looks for first in the script's own folder. Each names `<module>.py` or its package's
 * `__init__.py`, and every package on the way.
 */
function pythonReferences(dir: string, text: string): string[][] {
  const references: string[][] = [];
  const moduleFiles = (base: string, dotted: string): void => {
    const parts = dotted.split('.').filter((part) => part !== '');
    for (let depth = 1; depth <= parts.length; depth += 1) {
      const target = path.join(base, ...parts.slice(0, depth));
      references.push([`${target}.py`, path.join(target, '__init__.py')]);
    }
  };
  for (const match of text.matchAll(PYTHON_FROM)) {
    const dots = (match[1] as string).length;
    const base = dots <= 1 ? dir : path.resolve(dir, ...Array<string>(dots - 1).fill('..'));
    const module = match[2] as string;
    moduleFiles(base, module);
    for (const name of (match[3] as string).split(',')) {
      const imported = name.trim().split(/[ \t]/)[0] ?? '';
      if (/^\w+$/.test(imported)) moduleFiles(base, module === '' ? imported : `${module}.${imported}`);
    }
  }
  for (const match of text.matchAll(PYTHON_IMPORT)) {
    for (const name of (match[1] as string).split(',')) {
      const imported = name.trim().split(/[ \t]/)[0] ?? '';
      if (/^[\w.]+$/.test(imported)) moduleFiles(dir, imported);
    }
  }
  return references;
}
