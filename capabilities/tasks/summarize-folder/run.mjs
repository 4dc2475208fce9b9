import fs from 'node:fs';
import path from 'node:path';

const raw = fs.readFileSync(0, 'utf8').trim();
const input = raw === '' ? {} : JSON.parse(raw);
const start = path.resolve(process.cwd(), typeof input.path === 'string' ? input.path : '.');
if (path.relative(process.cwd(), start).startsWith('..')) {
  console.error('input.path must stay inside the working folder');
  process.exit(2);
}
const totals = new Map();
const walk = (dir) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '.git' || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full);
    else if (entry.isFile()) {
      const ext = path.extname(entry.name) || '(none)';
      const t = totals.get(ext) ?? { extension: ext, files: 0, bytes: 0 };
      t.files += 1;
      t.bytes += fs.statSync(full).size;
      totals.set(ext, t);
    }
  }
};
walk(start);
const byExtension = [...totals.values()].sort((a, b) => b.bytes - a.bytes);
process.stdout.write(JSON.stringify({ folder: path.relative(process.cwd(), start) || '.', byExtension }) + '\n');
