import fs from 'node:fs';
import path from 'node:path';
import { isLoadoutError } from '@loadout/files';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { fileReferences, MAX_REFERENCES } from './fileReferences.js';
import { fingerprintOf } from './RunnableCapabilities.js';
import { MAX_SCANNED_BYTES, RunnableFiles } from './RunnableFiles.js';

afterEach(removeTestdirs);

/** The code of the Loadout error `work` throws, or null when it throws none. */
function refusalOf(work: () => unknown): string | null {
  try {
    work();
  } catch (error) {
    if (isLoadoutError(error)) return error.code;
    throw error;
  }
  return null;
}

const names = (root: string, entries: string[]) =>
  new RunnableFiles()
    .closure(
      entries.map((entry) => path.join(root, entry)),
      root,
    )
    .map((file) => file.name);

describe('RunnableFiles', () => {
  it('37 H2 follows a task script into the shared files it imports, requires or sources, as far as they go', () => {
    const root = testdir({
      tasks: {
        greet: {
          'run.mjs': "import { word } from '../../lib/word.mjs';\nimport('./lazy.js');\n",
          'lazy.js': "const helper = require('../../lib/helper');\n",
          'run.ts': "export * from '../../lib/typed.js';\n",
          'run.sh': 'source "$(dirname "$0")/../../lib/env.sh"\n',
        },
      },
      lib: {
        'word.mjs': "export { more } from './more/index.mjs';\n",
        more: { 'index.mjs': '\n' },
        'helper.cjs': '\n',
        'typed.ts': '\n',
        'env.sh': '\n',
        'unused.mjs': '\n',
      },
    });
    expect(names(root, ['tasks/greet/lazy.js', 'tasks/greet/run.mjs', 'tasks/greet/run.sh', 'tasks/greet/run.ts']).sort()).toEqual([
      'lib/env.sh',
      'lib/helper.cjs',
      'lib/more/index.mjs',
      'lib/typed.ts',
      'lib/word.mjs',
      'tasks/greet/lazy.js',
      'tasks/greet/run.mjs',
      'tasks/greet/run.sh',
      'tasks/greet/run.ts',
    ]);
  });

  it("37 H2 follows a Python script's imports of its sibling modules and packages", () => {
    const root = testdir({
      tasks: {
        t: {
          'main.py': 'import helper\nfrom .pkg import tool\nfrom pkg.sub import x  # comment\nimport os, json\n',
          'helper.py': '\n',
          pkg: { '__init__.py': '\n', 'tool.py': '\n', 'sub.py': '\n' },
        },
      },
    });
    expect(names(root, ['tasks/t/main.py']).sort()).toEqual([
      'tasks/t/helper.py',
      'tasks/t/main.py',
      'tasks/t/pkg/__init__.py',
      'tasks/t/pkg/sub.py',
      'tasks/t/pkg/tool.py',
    ]);
  });

  it('37 H2 names a file reached outside the root by its real path, so a change there changes the fingerprint too', () => {
    const work = testdir({ plugin: { 'run.mjs': "import '../shared.mjs';\n" }, 'shared.mjs': 'v1\n' });
    const root = path.join(work, 'plugin');
    const files = new RunnableFiles();
    const before = files.closure([path.join(root, 'run.mjs')], root);
    expect(before.map((file) => file.name)).toEqual(['run.mjs', `outside:${path.join(work, 'shared.mjs')}`]);
    fs.writeFileSync(path.join(work, 'shared.mjs'), 'v2, longer\n');
    const after = files.closure([path.join(root, 'run.mjs')], root);
    expect(fingerprintOf(null, after, root)).not.toBe(fingerprintOf(null, before, root));
  });

  it('reads a file that is not a script only for its hash, and a loop of imports once', () => {
    const root = testdir({
      'a.mjs': "import './b.mjs';\n",
      'b.mjs': "import './a.mjs';\nimport './data.bin';\n",
      'data.bin': "import './c.mjs'\n",
      'c.mjs': '\n',
    });
    expect(names(root, ['a.mjs'])).toEqual(['a.mjs', 'b.mjs', 'data.bin']);
  });

  it('refuses a script too large to read for what it loads: it cannot be approved', () => {
    const root = testdir();
    fs.writeFileSync(path.join(root, 'big.js'), Buffer.alloc(MAX_SCANNED_BYTES + 1, 0x20));
    expect(refusalOf(() => names(root, ['big.js']))).toBe('RUNNABLE_FILE_TOO_LARGE');
  });
});

describe('bounds', () => {
  it('refuses a script naming more relative paths than can be followed at every session', () => {
    const root = testdir();
    fs.writeFileSync(
      path.join(root, 'many.js'),
      Array.from({ length: MAX_REFERENCES + 1 }, (_, index) => `require('./m${index}');`).join('\n'),
    );
    expect(refusalOf(() => names(root, ['many.js']))).toBe('RUNNABLE_TOO_MANY_REFERENCES');
    // The same path named many times is one reference.
    fs.writeFileSync(path.join(root, 'same.js'), "require('./same');\n".repeat(MAX_REFERENCES + 1));
    expect(names(root, ['same.js'])).toEqual(['same.js']);
  });
});

describe('fingerprintOf', () => {
  it('37 H1 is the same whether the definition names the root by placeholder or by the path it expanded to', () => {
    const root = testdir({ 'server.mjs': '\n' });
    const files = new RunnableFiles().closure([path.join(root, 'server.mjs')], root);
    const expanded = fingerprintOf({ command: 'node', args: [`${root}/server.mjs`], cwd: root }, files, root);
    expect(fingerprintOf({ command: 'node', args: ['${PLUGIN_ROOT}/server.mjs'], cwd: '${PLUGIN_ROOT}' }, files, root)).toBe(expanded);
    // A sibling folder whose name starts like the root's is not the root.
    expect(fingerprintOf({ command: 'node', args: [`${root}-other/server.mjs`] }, files, root)).not.toBe(
      fingerprintOf({ command: 'node', args: ['${PLUGIN_ROOT}-other/server.mjs'] }, files, root),
    );
  });
});

describe('fileReferences', () => {
  it('over-approximates: a relative path anywhere in the text is a reference, a bare package name is not', () => {
    const refs = fileReferences(
      '/p/x.js',
      "// see ./notes.md\nimport 'lodash';\nconst a = 'b/../c';\nfs.readFileSync(`./data.json?x=1`);\n",
    ).map((candidates) => candidates[0]);
    expect(refs).toEqual(['/p/notes.md', '/c', '/p/data.json']);
  });
});
