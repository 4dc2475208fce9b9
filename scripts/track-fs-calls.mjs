// Sends every package's file-system calls and process starts through what tells the current
// ReadLog (packages/files/src/ReadLog.ts), so the `apply` proof hears each path the action looked
// at. Kept so a branch made before it can be brought over it again: `node scripts/track-fs-calls.mjs`
//   - rewrites `fs.<name>` to `trackedFs.<name>` for each name `trackedFs` offers, in every file
//     that imports `fs` from 'node:fs' (scripts/trackedCalls.mjs says which files), drops the `fs`
//     import when nothing else uses it and imports `trackedFs` from @loadout/files (or ./ReadLog.js
//     inside that package);
//   - imports a `node:child_process` starter (`spawn`, `execFileSync`...) under an `untracked` name
//     and declares the starter as `spoilsReads('a child process', untrackedSpawn)`;
//   - lists @loadout/files in the package.json of every package that now imports it.
// Run `pnpm exec biome format --write packages` after it. Running it twice changes nothing;
// scripts/check-reads.mjs (in `pnpm lint`) finds what it cannot rewrite.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { root, STARTERS, trackedFsNames, trackedSources, UNTRACKED_FILES, untrackedName } from './trackedCalls.mjs';

const names = trackedFsNames();
const fsCall = new RegExp(`(?<![\\w.$])fs\\.(${names.join('|')})\\b`, 'g');
const FS_IMPORT = /^import fs from 'node:fs';\n/m;

/** Whether the code (comments aside) still names `fs` other than in its import: `fs.Stats`, `typeof fs`, `fs.constants`. */
function usesFs(text) {
  const source = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  let used = false;
  const visit = (node) => {
    if (used || ts.isImportDeclaration(node)) return;
    if (ts.isIdentifier(node) && node.text === 'fs') used = true;
    else ts.forEachChild(node, visit);
  };
  ts.forEachChild(source, visit);
  return used;
}
const changedPackages = new Set();
let rewritten = 0;

/** Adds `name` to the file's value import from `from` (merged into one there is), keeping the names sorted. */
function addImport(text, name, from) {
  const existing = new RegExp(`^import \\{([^}]*)\\} from '${from.replace(/[./]/g, '\\$&')}';$`, 'm').exec(text);
  if (existing !== null) {
    const parts = existing[1]
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
    if (parts.some((part) => part === name || part.endsWith(` as ${name}`))) return text;
    parts.push(name);
    const bare = (part) => part.replace(/^type /, '').toLowerCase();
    parts.sort((a, b) => (bare(a) < bare(b) ? -1 : bare(a) > bare(b) ? 1 : 0));
    return text.replace(existing[0], `import { ${parts.join(', ')} } from '${from}';`);
  }
  return insertAfterImports(text, `import { ${name} } from '${from}';\n`);
}

/** Puts `line` after the file's last import. */
function insertAfterImports(text, line) {
  let end = 0;
  for (const match of text.matchAll(/^import [\s\S]*?from '[^']+';\n/gm)) end = match.index + match[0].length;
  return text.slice(0, end) + line + text.slice(end);
}

for (const file of trackedSources()) {
  if (UNTRACKED_FILES.has(file)) continue;
  const absolute = path.join(root, file);
  const before = fs.readFileSync(absolute, 'utf8');
  let text = before;
  const pkg = file.split('/')[1];
  const facadeFrom = pkg === 'files' ? './ReadLog.js' : '@loadout/files';
  if (FS_IMPORT.test(text) && text.search(fsCall) >= 0) {
    // Code only: a comment that names `fs.readFileSync` keeps saying so.
    text = text
      .split('\n')
      .map((line) => (/^\s*(\/\/|\*|\/\*)/.test(line) ? line : line.replace(fsCall, (_, name) => `trackedFs.${name}`)))
      .join('\n');
    if (!usesFs(text)) text = text.replace(FS_IMPORT, '');
    text = addImport(text, 'trackedFs', facadeFrom);
  }
  // `import { spawn } from 'node:child_process'` → the starter under another name, wrapped.
  const childImport = /^import \{([^}]*)\} from 'node:child_process';$/m.exec(text);
  if (childImport !== null) {
    const starters = [];
    const parts = childImport[1].split(',').map((part) => {
      const name = part.trim();
      if (!STARTERS.includes(name)) return name;
      starters.push(name);
      return `${name} as ${untrackedName(name)}`;
    });
    if (starters.length > 0) {
      text = text.replace(childImport[0], `import { ${parts.filter((part) => part !== '').join(', ')} } from 'node:child_process';`);
      text = addImport(text, 'spoilsReads', facadeFrom);
      const declarations = starters
        .map(
          (name) =>
            `/** Starts a process; a ReadLog cannot follow what it reads, so it spoils the current one. */\nconst ${name} = spoilsReads('a child process', ${untrackedName(name)});\n`,
        )
        .join('');
      text = insertAfterImports(text, `\n${declarations}`);
    }
  }
  if (text !== before) {
    fs.writeFileSync(absolute, text);
    rewritten += 1;
    if (pkg !== 'files') changedPackages.add(pkg);
  }
}

for (const pkg of changedPackages) {
  const manifestFile = path.join(root, 'packages', pkg, 'package.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  if (manifest.dependencies?.['@loadout/files'] !== undefined) continue;
  manifest.dependencies = Object.fromEntries(
    Object.entries({ ...manifest.dependencies, '@loadout/files': 'workspace:*' }).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`track-fs-calls: packages/${pkg}/package.json now lists @loadout/files (run pnpm install)`);
}
console.log(`track-fs-calls: ${rewritten} file${rewritten === 1 ? '' : 's'} rewritten`);
