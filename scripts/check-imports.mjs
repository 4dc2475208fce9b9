// Holds the workspace's shape (`pnpm lint`). Every rule reads the code itself, so a new package is
// held to it without being named here:
// - no import cycles between packages, and every workspace import is listed in the importing
//   package's package.json (tests, testing entries, fixtures and type declarations may use its
//   devDependencies too);
// - a package is imported through its public face only: `@loadout/x` or an entry x's package.json
//   exports (`@loadout/x/testing`), never `@loadout/x/src/...` or a relative path into another
//   package's folder;
// - the file-system helpers (`files`) sit below everything: they depend on no workspace package;
//   the kernel depends on them only, and names no kind: no string in its source is a kind's name,
//   folder or session key;
// - a store (a package that contributes to `CapabilityKinds`) depends on the kernel, the database
//   and the api contracts only, and the server depends on no store: features reach it as
//   contributions;
// - a package that keeps reads (it contributes a `ScanSource`: the watch cache and every memo of
//   an open) sits below the features: it depends on the kernel (and the file helpers) only and no
//   store depends on it;
//   the kernel, its tests included, never depends on it nor imports it;
// - every name a package's `src/index.ts` exports is imported by another package, or is a
//   documented extension point listed in EXTENSION_POINTS below.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
const packagesDir = path.join(root, 'packages');
/** The contract packages a store may build on: the kernel, the file helpers under it, the database, and the faces' contribution points. */
const STORE_MAY_USE = new Set(['kernel', 'files', 'db', 'api']);
/** The leaf: helpers every package may use, which use no workspace package. */
const LEAF = 'files';
/** What a package that keeps reads may depend on. */
const KEEPER_MAY_USE = new Set(['kernel', LEAF]);

/**
 * Exports no other package imports today, public on purpose: the extension points
 * docs/architecture.md documents (what a new package writes its contributions with), and what a
 * contribution's author reads to write one. An entry that is no longer exported, or that another
 * package now imports, is reported so the list stays true.
 */
const EXTENSION_POINTS = {
  // The contribution contract: a kind's record draft, the shape a JSON kind reads with, the
  // session section, the loader's options, the token type every contribution token has, a
  // change stamp's shape.
  kernel: ['DraftRecord', 'SessionSection', 'KernelOptions', 'ChangeStamp'],
  // The app's options, beside createLoadout.
  app: ['LoadoutOptions'],
};

const problems = [];
const packages = new Map();
for (const name of fs.readdirSync(packagesDir).sort()) {
  const manifestFile = path.join(packagesDir, name, 'package.json');
  if (!fs.existsSync(manifestFile)) continue;
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  const ours = (list) =>
    Object.keys(list ?? {})
      .filter((dep) => dep.startsWith('@loadout/'))
      .map((dep) => dep.slice('@loadout/'.length));
  for (const [entry, conditions] of Object.entries(manifest.exports ?? {})) {
    for (const target of Object.values(typeof conditions === 'string' ? { default: conditions } : conditions)) {
      // dist/ appears with a build; every other target must be there now.
      if (!target.startsWith('./dist/') && !fs.existsSync(path.join(packagesDir, name, target))) {
        problems.push(`packages/${name}/package.json exports ${entry} as ${target}, which does not exist`);
      }
    }
  }
  packages.set(name, {
    dir: path.join(packagesDir, name),
    deps: ours(manifest.dependencies),
    devDeps: ours(manifest.devDependencies),
    entries: new Set(Object.keys(manifest.exports ?? {})),
    files: [...walk(path.join(packagesDir, name))].map((file) => ({ file, source: parse(file) })),
  });
}

const relative = (file) => path.relative(root, file);
const isProductionSource = (pkg, file) => {
  const inPackage = path.relative(pkg.dir, file);
  return inPackage.startsWith(`src${path.sep}`) && !/\.test\.[cm]?[jt]s$/.test(file) && !inPackage.split(path.sep).includes('testing');
};

// Stores, and the names their kinds declare (`kind`, `folder`, `sessionKey`, written together).
const stores = new Set();
const kindWords = new Set();
for (const [name, pkg] of packages) {
  const sources = pkg.files.filter(({ file }) => isProductionSource(pkg, file)).map(({ source }) => source.text);
  if (name === 'kernel' || !sources.some((text) => /contribute\([^,()]+,\s*CapabilityKinds\b/.test(text))) continue;
  stores.add(name);
  for (const text of sources) {
    for (const match of text.matchAll(/\bkind:\s*'([a-z][\w-]*)',\s*folder:\s*'([a-z][\w-]*)',\s*sessionKey:\s*'([a-z][\w-]*)'/g)) {
      for (const word of match.slice(1)) kindWords.add(word);
    }
  }
}
// Packages that keep reads: they contribute the kernel's ScanSource.
const keepers = new Set();
for (const [name, pkg] of packages) {
  if (name === 'kernel') continue;
  const sources = pkg.files.filter(({ file }) => isProductionSource(pkg, file)).map(({ source }) => source.text);
  if (sources.some((text) => /contribute\([^,()]+,\s*ScanSource\b/.test(text))) keepers.add(name);
}
if (keepers.size === 0)
  problems.push(
    'found no package that contributes a ScanSource: the checks that keep the kept reads below the features would pass blindly',
  );
if (kindWords.size === 0)
  problems.push(
    'found no kind declarations (kind, folder, sessionKey) in any store: the check that the kernel names no kind would pass blindly',
  );

// Imports: declared, through public faces only, the kernel naming no kind.
const used = new Map([...packages.keys()].map((name) => [name, new Set()]));
for (const [name, pkg] of packages) {
  for (const { file, source } of pkg.files) {
    const production = isProductionSource(pkg, file);
    const allowed = production ? pkg.deps : [...pkg.deps, ...pkg.devDeps];
    for (const { specifier, names } of importsOf(source)) {
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(file), specifier);
        if (target !== pkg.dir && !target.startsWith(`${pkg.dir}${path.sep}`)) {
          problems.push(`${relative(file)} imports ${specifier}: a file of another package; import that package by its name`);
        }
        continue;
      }
      const match = /^@loadout\/([a-z0-9-]+)(\/.*)?$/.exec(specifier);
      if (match === null) continue;
      const [, target, subpath] = match;
      if (target === name) continue;
      if (!allowed.includes(target)) {
        problems.push(
          `${relative(file)} imports @loadout/${target}, which ${name}'s package.json does not list${production ? ' as a dependency' : ''}`,
        );
      }
      if (subpath !== undefined && !packages.get(target)?.entries.has(`.${subpath}`)) {
        problems.push(
          `${relative(file)} imports ${specifier}: internals of @loadout/${target}; use its public face (its package.json exports)`,
        );
      }
      if (subpath === undefined) for (const imported of names) used.get(target)?.add(imported);
    }
    if ((name === 'kernel' || name === LEAF) && production) {
      for (const { text, at } of stringsOf(source)) {
        // `.agents` is the project's root folder, a place, not the `agents` kind.
        const named = [...kindWords].find((word) => new RegExp(`(^|[^A-Za-z.])${word}([^A-Za-z]|$)`).test(text));
        if (named !== undefined)
          problems.push(`${relative(file)}:${at}: ${name} names the kind '${named}' ("${text.slice(0, 60)}"); let the kind declare it`);
      }
    }
  }
}

// The repository's own scripts (the benchmarks) use the built packages as another package would.
for (const file of walk(path.join(root, 'scripts'))) {
  for (const { specifier, names } of importsOf(parse(file))) {
    const target = /^packages\/([a-z0-9-]+)\/dist\/index\.js$/.exec(
      path
        .relative(root, path.resolve(path.dirname(file), specifier))
        .split(path.sep)
        .join('/'),
    );
    if (target !== null) for (const imported of names) used.get(target[1])?.add(imported);
  }
}

// The package graph.
for (const [name, pkg] of packages) {
  if (name === LEAF && [...pkg.deps, ...pkg.devDeps].length > 0)
    problems.push(`${LEAF} sits below everything and must not depend on ${[...pkg.deps, ...pkg.devDeps].join(', ')}`);
  if (name === 'kernel' && pkg.deps.some((dep) => dep !== LEAF))
    problems.push(`kernel must not depend on ${pkg.deps.filter((dep) => dep !== LEAF).join(', ')}; it builds on ${LEAF} only`);
  if (stores.has(name)) {
    const extra = pkg.deps.filter((dep) => !STORE_MAY_USE.has(dep));
    if (extra.length > 0)
      problems.push(
        `store ${name} depends on ${extra.join(', ')}; a store depends on the kernel (and the database and api contracts) only`,
      );
  }
  if (keepers.has(name) && pkg.deps.some((dep) => !KEEPER_MAY_USE.has(dep))) {
    problems.push(
      `${name} keeps reads and depends on ${pkg.deps.filter((dep) => !KEEPER_MAY_USE.has(dep)).join(', ')}; it sits below the features and depends on the kernel only`,
    );
  }
  if (stores.has(name) && pkg.deps.some((dep) => keepers.has(dep)))
    problems.push(
      `store ${name} depends on ${pkg.deps.filter((dep) => keepers.has(dep)).join(', ')}, which keeps reads; a store never relies on reads being kept`,
    );
  if (name === 'kernel') {
    const named = [...pkg.deps, ...pkg.devDeps].filter((dep) => keepers.has(dep));
    if (named.length > 0)
      problems.push(`kernel depends on ${named.join(', ')}, which keeps reads; the kernel knows only its ScanSource contract`);
    for (const { file, source } of pkg.files) {
      for (const { specifier } of importsOf(source)) {
        const keeper = /^@loadout\/([a-z0-9-]+)/.exec(specifier)?.[1];
        if (keeper !== undefined && keepers.has(keeper))
          problems.push(`${relative(file)} imports ${specifier}; the kernel knows only its ScanSource contract`);
      }
    }
  }
  if (name === 'server') {
    const named = [...pkg.deps, ...pkg.devDeps].filter((dep) => stores.has(dep));
    if (named.length > 0)
      problems.push(`server depends on the store ${named.join(', ')}; a store reaches the server through its contributions only`);
  }
}
const state = new Map();
const visit = (name, trail) => {
  if (state.get(name) === 'done') return;
  if (state.get(name) === 'active') {
    problems.push(`import cycle: ${[...trail.slice(trail.indexOf(name)), name].join(' -> ')}`);
    return;
  }
  state.set(name, 'active');
  for (const dep of packages.get(name)?.deps ?? []) visit(dep, [...trail, name]);
  state.set(name, 'done');
};
for (const name of packages.keys()) visit(name, []);

// Public faces: what another package imports, plus the documented extension points.
let exported = 0;
for (const [name, pkg] of packages) {
  const index = path.join(pkg.dir, 'src', 'index.ts');
  if (!fs.existsSync(index)) continue;
  const names = exportsOf(index, new Set());
  exported += names.size;
  const allowList = new Set(EXTENSION_POINTS[name] ?? []);
  const imported = used.get(name);
  const unused = [...names].filter((exportedName) => !imported.has(exportedName) && !allowList.has(exportedName)).sort();
  if (unused.length > 0)
    problems.push(
      `${relative(index)} exports what no other package imports: ${unused.join(', ')} (export it from its own file for the package's tests, or list a documented extension point in EXTENSION_POINTS)`,
    );
  for (const allowed of allowList) {
    if (!names.has(allowed)) problems.push(`EXTENSION_POINTS lists ${name}'s ${allowed}, which ${relative(index)} no longer exports`);
    else if (imported.has(allowed))
      problems.push(`EXTENSION_POINTS lists ${name}'s ${allowed}, which another package imports now: take it off the list`);
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`check-imports: ${problem}`);
  process.exit(1);
}
console.log(`check-imports: ${packages.size} packages, ${exported} exports all used or documented, no cycles, no deep imports`);

function* walk(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (/\.[cm]?[jt]s$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield full;
  }
}

function parse(file) {
  return ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** Every module a file imports or re-exports from, with the names it takes (`*` for a namespace). */
function importsOf(source) {
  const found = [];
  const visitNode = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const names = [];
      if (ts.isImportDeclaration(node)) {
        const bindings = node.importClause?.namedBindings;
        if (bindings !== undefined && ts.isNamedImports(bindings))
          for (const element of bindings.elements) names.push((element.propertyName ?? element.name).text);
        else if (bindings !== undefined) names.push('*');
        if (node.importClause?.name !== undefined) names.push('default');
      } else if (node.exportClause !== undefined && ts.isNamedExports(node.exportClause)) {
        for (const element of node.exportClause.elements) names.push((element.propertyName ?? element.name).text);
      } else {
        names.push('*');
      }
      found.push({ specifier: node.moduleSpecifier.text, names });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({
        specifier: node.argument.literal.text,
        names:
          node.qualifier === undefined ? ['*'] : [ts.isIdentifier(node.qualifier) ? node.qualifier.text : node.qualifier.left.getText()],
      });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, names: dynamicImportNames(node) });
    }
    ts.forEachChild(node, visitNode);
  };
  visitNode(source);
  return found;
}

/**
 * The names a dynamic import takes: `(await import('x')).name` and `const { a, b } = await
 * import('x')`; `*` for any other use.
 */
function dynamicImportNames(call) {
  let node = call.parent;
  if (node !== undefined && ts.isAwaitExpression(node)) {
    const awaited = node;
    node = awaited.parent;
    if (
      node !== undefined &&
      ts.isParenthesizedExpression(node) &&
      ts.isPropertyAccessExpression(node.parent) &&
      ts.isIdentifier(node.parent.name)
    )
      return [node.parent.name.text];
    if (node !== undefined && ts.isVariableDeclaration(node) && ts.isObjectBindingPattern(node.name)) {
      return node.name.elements.map((element) => (element.propertyName ?? element.name).getText());
    }
  }
  return ['*'];
}

/** The text and line of every string literal in a file (comments are not strings). */
function stringsOf(source) {
  const found = [];
  const visitNode = (node) => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      if (!ts.isImportDeclaration(node.parent) && !ts.isExportDeclaration(node.parent)) {
        found.push({ text: node.text, at: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
      }
    }
    ts.forEachChild(node, visitNode);
  };
  visitNode(source);
  return found;
}

/** The names a module exports, following `export * from` and `export { … } from` inside its package. */
function exportsOf(file, seen) {
  const names = new Set();
  if (seen.has(file)) return names;
  seen.add(file);
  const source = parse(file);
  const local = (specifier) => path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts'));
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (statement.exportClause === undefined && statement.moduleSpecifier !== undefined) {
        for (const name of exportsOf(local(statement.moduleSpecifier.text), seen)) names.add(name);
      } else if (statement.exportClause !== undefined && ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) names.add(element.name.text);
      }
      continue;
    }
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
    if (!modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue;
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text);
    } else if (statement.name !== undefined && ts.isIdentifier(statement.name)) {
      names.add(statement.name.text);
    }
  }
  return names;
}
