// Rewrites imports after exports moved from one package to another (issue 35 moved the kernel's
// file-system helpers to @loadout/files). Kept so that a branch made before a move can be brought
// over it again: `node scripts/move-exports.mjs` rewrites every import and re-export in
// packages/*/{src,test} that names a moved export, splitting a declaration when only some of its
// names moved, and lists @loadout/files in the package.json of every package that now imports it.
// Run `pnpm exec biome format --write packages` after it. Running it twice changes nothing.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
const packagesDir = path.join(root, 'packages');

/** What moved: from a package entry to another, by name. */
const MOVES = [
  {
    from: '@loadout/kernel',
    to: '@loadout/files',
    names: [
      // LoadoutError.ts
      'ErrorCategory',
      'LoadoutError',
      'InvalidInputError',
      'NotFoundError',
      'ConflictError',
      'OperationFailedError',
      'ServiceUnavailableError',
      'isLoadoutError',
      // pathsInside.ts
      'DocumentRefusedError',
      'DocumentUnreadableError',
      'unreadable',
      'isInside',
      'OPEN_FLAGS',
      'realpathInside',
      'resolveInside',
      'relativeInside',
      'describeFileType',
      'RealPathInside',
      // the rest, one file each
      'FileReader',
      'nodeFileReader',
      'emptyFileBytes',
      'readRegularFile',
      'RegularFileOptions',
      'FileBytes',
      'FolderEntry',
      'FolderListing',
      'listFolderInside',
      'folderEntryInside',
      'acquireFileLock',
      'FileLock',
      'FileLockError',
      'FileLockOptions',
      'FileLockRetries',
      'withFileLock',
      'isProcessAlive',
      'processStartTime',
      'ensurePrivateFolder',
      'narrowMode',
      'PRIVATE_FILE_MODE',
      'editJsonText',
      'JsonTextEdit',
      'EntryMoves',
      'MOVE_STAGING_PREFIX',
      'moveEntry',
      'nodeEntryMoves',
      'writeFileAtomicSync',
      'WriteRefusedError',
      'AtomicWriteOptions',
      'checkWriteInside',
      'writeFileInside',
      'isRegularFile',
      'realPathOrSame',
      'pathAndRealPath',
      'changedAfter',
      'isFolderStamp',
      'RACY_MS',
      'statStamp',
      'childPath',
    ],
  },
  { from: '@loadout/kernel/testing', to: '@loadout/files/testing', names: ['TreeDescription', 'writeTree', 'testdir', 'removeTestdirs'] },
];

/** A kernel file's own relative imports of what moved: the module it named, as the package entry it now is part of. */
const KERNEL_FILES = new Map([
  ['packages/kernel/src/index.ts', '@loadout/kernel'],
  ['packages/kernel/src/DocumentReader.ts', '@loadout/kernel'],
  ['packages/kernel/src/testing/index.ts', '@loadout/kernel/testing'],
]);

let changedFiles = 0;
for (const name of fs.readdirSync(packagesDir).sort()) {
  const dir = path.join(packagesDir, name);
  if (!fs.existsSync(path.join(dir, 'package.json'))) continue;
  let production = false;
  let anywhere = false;
  for (const file of walk(dir)) {
    const text = fs.readFileSync(file, 'utf8');
    const rewritten = rewrite(file, text);
    if (rewritten !== text) {
      fs.writeFileSync(file, rewritten);
      changedFiles += 1;
    }
    if (name === 'files' || !/from '@loadout\/files(\/testing)?'/.test(rewritten)) continue;
    anywhere = true;
    const inPackage = path.relative(dir, file);
    if (inPackage.startsWith(`src${path.sep}`) && !/\.test\.ts$/.test(file) && !inPackage.split(path.sep).includes('testing'))
      production = true;
  }
  if (anywhere) listDependency(path.join(dir, 'package.json'), production);
}
console.log(`move-exports: rewrote ${changedFiles} files`);

/** `text` of `file` with every moved name imported from where it lives now. */
function rewrite(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edits = [];
  for (const statement of source.statements) {
    const isImport = ts.isImportDeclaration(statement);
    if (!isImport && !ts.isExportDeclaration(statement)) continue;
    if (statement.moduleSpecifier === undefined || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const entry = entryOf(file, statement.moduleSpecifier.text);
    if (entry === null) continue;
    const move = MOVES.find((candidate) => candidate.from === entry.name);
    if (move === undefined) continue;
    const elements = isImport
      ? statement.importClause?.namedBindings !== undefined && ts.isNamedImports(statement.importClause.namedBindings)
        ? statement.importClause.namedBindings.elements
        : null
      : statement.exportClause !== undefined && ts.isNamedExports(statement.exportClause)
        ? statement.exportClause.elements
        : null;
    if (elements === null || (isImport && statement.importClause.name !== undefined)) continue;
    const moved = elements.filter((element) => entry.whole || move.names.includes((element.propertyName ?? element.name).text));
    if (moved.length === 0) continue;
    const kept = elements.filter((element) => !moved.includes(element));
    const typeOnly = isImport ? statement.importClause.isTypeOnly : statement.isTypeOnly;
    const keyword = `${isImport ? 'import' : 'export'}${typeOnly ? ' type' : ''}`;
    const list = (chosen) => chosen.map((element) => element.getText(source)).join(', ');
    const lines = [];
    if (kept.length > 0) lines.push(`${keyword} { ${list(kept)} } from '${statement.moduleSpecifier.text}';`);
    lines.push(`${keyword} { ${list(moved)} } from '${move.to}';`);
    edits.push({ start: statement.getStart(source), end: statement.getEnd(), text: lines.join('\n') });
  }
  let result = text;
  for (const edit of edits.reverse()) result = result.slice(0, edit.start) + edit.text + result.slice(edit.end);
  return result;
}

/**
 * The package entry a specifier names, or null when nothing of it moved. `whole`: the file it
 * named was itself moved, so every name it gives comes from the new package now.
 */
function entryOf(file, specifier) {
  if (!specifier.startsWith('.')) return MOVES.some((move) => move.from === specifier) ? { name: specifier, whole: false } : null;
  const target = path.relative(root, path.resolve(path.dirname(file), specifier)).replace(/\.js$/, '.ts');
  if (!target.startsWith('packages/kernel/')) return null;
  const known = KERNEL_FILES.get(target);
  if (known !== undefined) return { name: known, whole: false };
  if (fs.existsSync(path.join(root, target))) return null;
  return { name: '@loadout/kernel', whole: true };
}

/** Lists @loadout/files in a package.json: as a dependency when production code imports it, else for its tests. */
function listDependency(manifestFile, production) {
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  const field = production ? 'dependencies' : 'devDependencies';
  if (manifest.dependencies?.['@loadout/files'] !== undefined) return;
  if (production && manifest.devDependencies?.['@loadout/files'] !== undefined) {
    delete manifest.devDependencies['@loadout/files'];
    if (Object.keys(manifest.devDependencies).length === 0) delete manifest.devDependencies;
  } else if (manifest[field]?.['@loadout/files'] !== undefined) return;
  manifest[field] = { '@loadout/files': 'workspace:*', ...(manifest[field] ?? {}) };
  fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
}

function* walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (/\.(ts|mts|mjs|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield full;
  }
}
