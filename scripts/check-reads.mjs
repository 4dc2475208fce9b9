// Holds every package's code to what the `apply` proof's ReadLog can hear (`pnpm lint`):
// - a path-taking `fs` function `trackedFs` offers is called through it, never on `fs` itself;
// - a path-taking `fs` function it does not offer (callback, promise and stream forms, watches) is
//   called only where ALLOWED says why no log needs to hear it;
// - a `node:child_process` starter is called only as `spoilsReads('a child process', untrackedX)`;
// - stderr is written only where ALLOWED says why (the command line's own output spoils the log);
// - nothing anywhere in packages/*/src replaces a function of `fs`, `child_process` or
//   `process.stderr` (an assignment to one).
// scripts/track-fs-calls.mjs rewrites what it can of the first two; scripts/trackedCalls.mjs says
// which files are held and which call `fs` itself on purpose (those are held to the last rule only).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { root, STARTERS, trackedFsNames, trackedSources, UNTRACKED_FILES, UNTRACKED_FS, untrackedName } from './trackedCalls.mjs';

/** `file: what` → why it needs no log. Each entry must still be used: one that is not is reported. */
const ALLOWED = new Map([
  ['packages/files/src/FileLock.ts: fs.mkdir', "proper-lockfile's own calls, on the lock folder: Loadout's own file, which no proof holds"],
  ['packages/files/src/FileLock.ts: fs.rm', "proper-lockfile's own calls, on the lock folder: Loadout's own file, which no proof holds"],
  ['packages/files/src/FileLock.ts: fs.rmdir', "proper-lockfile's own calls, on the lock folder: Loadout's own file, which no proof holds"],
  [
    'packages/files/src/FileLock.ts: fs.writeFile',
    "proper-lockfile's own calls, on the lock folder: Loadout's own file, which no proof holds",
  ],
  ['packages/kept-reads/src/WatchBudget.ts: fs.watch', 'the watch cache watches only in `loadout serve` (watch on), never in an apply'],
  [
    'packages/jobs/src/runProcesses.ts: fs.promises',
    "a task run's scratch folder, removed after its process started, which spoiled any log already",
  ],
  ['packages/server/src/http/staticAssetRoutes.ts: fs.promises', "the screen's files, served by `loadout serve`: never an apply"],
  ['packages/mcp/src/runStdioServer.ts: process.stderr.write', '`loadout mcp` logs to stderr: a server of its own, never an apply'],
  ['packages/server/src/startServer.ts: process.stderr.write', '`loadout serve` logs to stderr: a server of its own, never an apply'],
  ['packages/cli/src/commands/serveCommand.ts: process.stderr.write', '`loadout serve` says where it listens: never an apply'],
  [
    'packages/usage/src/usageLaterModule.ts: process.stderr.write',
    'the usage recorder logs on stderr through a function that spoils the current log first',
  ],
]);

const tracked = new Set(trackedFsNames());
const untracked = new Set(UNTRACKED_FS);
const problems = [];
const used = new Set();

/** A use `what` at `node` of `file`: fine when ALLOWED says why, else a problem saying `fix`. */
function report(file, source, node, what, fix) {
  const key = `${file}: ${what}`;
  if (ALLOWED.has(key)) {
    used.add(key);
    return;
  }
  const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
  problems.push(`${file}:${line + 1}: ${what}: ${fix}`);
}

/** How to start a process the log hears of. */
const wrapStarter = (starter) =>
  `import it as ${untrackedName(starter)} and call spoilsReads('a child process', ${untrackedName(starter)})`;

/** The dotted name of an expression made of identifiers and property accesses (`process.stderr.write`), else null. */
function dotted(node) {
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node) || ts.isTypeAssertionExpression(node))
    return dotted(node.expression);
  if (ts.isIdentifier(node)) return node.text;
  if (ts.isElementAccessExpression(node) && ts.isStringLiteral(node.argumentExpression)) {
    const left = dotted(node.expression);
    return left === null ? null : `${left}.${node.argumentExpression.text}`;
  }
  if (ts.isPropertyAccessExpression(node)) {
    const left = dotted(node.expression);
    return left === null ? null : `${left}.${node.name.text}`;
  }
  return null;
}

for (const file of trackedSources()) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const ownFs = UNTRACKED_FILES.has(file);
  /** Local names bound to `node:fs` and `node:child_process` (default or namespace imports). */
  const fsNames = new Set();
  const childNames = new Set();
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const from = node.moduleSpecifier.text.replace(/^node:/, '');
      const clause = node.importClause;
      if (clause !== undefined && !clause.isTypeOnly && (from === 'fs' || from === 'fs/promises' || from === 'child_process')) {
        if (clause.name !== undefined) (from === 'child_process' ? childNames : fsNames).add(clause.name.text);
        const bindings = clause.namedBindings;
        if (bindings !== undefined && ts.isNamespaceImport(bindings))
          (from === 'child_process' ? childNames : fsNames).add(bindings.name.text);
        if (bindings !== undefined && ts.isNamedImports(bindings)) {
          for (const element of bindings.elements) {
            if (element.isTypeOnly) continue;
            const imported = (element.propertyName ?? element.name).text;
            if (from === 'fs/promises' && !ownFs)
              report(file, source, element, `fs.promises.${imported}`, 'no ReadLog hears a promise call: use trackedFs');
            if (from === 'fs' && !ownFs && (tracked.has(imported) || untracked.has(imported)))
              report(file, source, element, `fs.${imported}`, tracked.has(imported) ? `use trackedFs.${imported}` : 'no ReadLog hears it');
            if (from === 'child_process' && !ownFs && STARTERS.includes(imported) && element.name.text !== untrackedName(imported))
              report(file, source, element, `child_process.${imported}`, wrapStarter(imported));
          }
        }
      }
      return;
    }
    // An assignment to a function of fs, child_process or stderr replaces it for the whole process.
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const target = dotted(node.left);
      const head = target?.split('.')[0];
      if (target !== null && (fsNames.has(head) || childNames.has(head) || target.startsWith('process.stderr')))
        report(file, source, node, `${target} =`, 'never replace a function of Node process-wide: tell a ReadLog instead');
    }
    // So does one made through Object.assign, Object.defineProperty or Reflect.set.
    if (ts.isCallExpression(node) && /^(Object\.assign|Object\.defineProperty|Reflect\.set)$/.test(dotted(node.expression) ?? '')) {
      const target = node.arguments[0] === undefined ? null : dotted(node.arguments[0]);
      const head = target?.split('.')[0];
      if (target !== null && (fsNames.has(head) || childNames.has(head) || target.startsWith('process.stderr')))
        report(
          file,
          source,
          node,
          `${dotted(node.expression)}(${target})`,
          'never replace a function of Node process-wide: tell a ReadLog instead',
        );
    }
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
      const holder = node.expression.text;
      const name = node.name.text;
      if (fsNames.has(holder) && !ownFs && tracked.has(name)) report(file, source, node, `fs.${name}`, `use trackedFs.${name}`);
      else if (fsNames.has(holder) && !ownFs && untracked.has(name))
        report(file, source, node, `fs.${name}`, 'no ReadLog hears it: use trackedFs');
      if (childNames.has(holder) && !ownFs && STARTERS.includes(name))
        report(file, source, node, `child_process.${name}`, wrapStarter(name));
    }
    // An untracked starter is only ever handed to spoilsReads.
    if (ts.isIdentifier(node) && STARTERS.some((name) => untrackedName(name) === node.text)) {
      const parent = node.parent;
      const handed = ts.isCallExpression(parent) && dotted(parent.expression) === 'spoilsReads' && parent.arguments[1] === node;
      if (!handed && !ts.isImportSpecifier(parent)) report(file, source, node, node.text, 'call it only through spoilsReads');
    }
    if (ts.isCallExpression(node) && !ownFs) {
      const callee = dotted(node.expression);
      if (callee === 'process.stderr.write' || /^console\.(error|warn|log|info|debug)$/.test(callee ?? ''))
        report(
          file,
          source,
          node,
          callee,
          'the apply proof keeps stdout alone: say it through the command line (CliContext), which spoils the log',
        );
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

for (const key of ALLOWED.keys())
  if (!used.has(key)) problems.push(`scripts/check-reads.mjs allows ${key}, which no longer happens: remove it`);
if (problems.length > 0) {
  console.error(`check-reads: ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exitCode = 1;
} else {
  console.log(`check-reads: ${trackedSources().length} files, every fs call, process start and stderr write heard or allowed`);
}
