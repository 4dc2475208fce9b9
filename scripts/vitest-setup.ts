import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';

// Loadout plans against the agent clients it finds on PATH (`claude --version`). A package
// runner puts packages/e2e's own `node_modules/.bin` there, whose `claude` is either pinned Claude
// Code (both name their command so): those folders are taken off, and a test that means a client
// puts that one on PATH itself (packages/e2e/test/runtimes/realClients.ts, `claudeOnPath`).
const repository = path.resolve(import.meta.dirname, '..');
process.env.PATH = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter(
    (folder) =>
      !(
        folder.startsWith(repository) &&
        folder.endsWith(path.join('node_modules', '.bin')) &&
        ['claude', 'codex'].some((client) => fs.existsSync(path.join(folder, client)))
      ),
  )
  .join(path.delimiter);
