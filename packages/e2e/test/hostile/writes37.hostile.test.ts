import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { fifo, loadout, skill, workspace } from './coreSupport.js';

/**
 * Issue 37's findings about what Loadout writes and the user files `apply` reads, met through the
 * built `loadout` as the audit met them: F1 (a gate write through a link), M4 (a runtime's own
 * write made during an apply), L3 (a FIFO where a runtime keeps its MCP servers), L4 (a committed
 * link to a `~/.claude/skills` not made yet), L6 (bytes that are not UTF-8 in a runtime's file).
 */

const helpers: ChildProcess[] = [];
afterEach(() => {
  for (const child of helpers.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  removeTestdirs();
});

const gated = `---\nname: pdf\ndescription: Reads PDFs.\ngates:\n  network: off\n---\nBody.\n`;
const serverDoc = (index: number): string =>
  `${JSON.stringify({ name: `Server ${index}`, command: 'node', args: [`/opt/server-${index}.js`] }, null, 2)}\n`;

interface Finding {
  code: string;
  message: string;
}
interface ApplyJson {
  ok: boolean;
  runtimes: { runtime: string; findings: Finding[] }[];
}
const findings = (result: ApplyJson, code: string): Finding[] =>
  result.runtimes.flatMap((part) => part.findings.filter((finding) => finding.code === code));

describe('37: what Loadout writes, and the user files apply reads', () => {
  it('37 F1 a gate write refuses a config.json that is a link, and the document it leads to stays as it was', () => {
    const ws = workspace({ capabilities: { skills: { pdf: { 'SKILL.md': gated } }, servers: { 'docs.json': serverDoc(1) } } });
    const config = path.join(ws.home, 'capabilities', 'config.json');
    fs.symlinkSync('servers/docs.json', config);
    const run = loadout(ws.home, ['capability', 'set', 'skill/pdf', '--gate', 'network=on', '--json']);
    expect(run.status).toBe(1);
    expect(run.json<{ written: boolean; error: { code: string; message: string } }>()).toMatchObject({
      written: false,
      error: { code: 'PATH_IS_LINK' },
    });
    expect(fs.readFileSync(path.join(ws.home, 'capabilities/servers/docs.json'), 'utf8')).toBe(serverDoc(1));
    expect(fs.lstatSync(config).isSymbolicLink()).toBe(true);
    const session = loadout(ws.home, ['session', '--json']);
    expect(session.stdout).not.toContain('GATES_MALFORMED');
  });

  it("37 M4 a runtime's own write to config.toml made while apply writes it is kept", async () => {
    const servers: Record<string, string> = {};
    for (let index = 0; index < 6; index += 1) servers[`s${index}.json`] = serverDoc(index);
    const ws = workspace({ capabilities: { servers } });
    const codexFolder = path.join(ws.home, '.codex');
    const codexFile = path.join(codexFolder, 'config.toml');
    fs.mkdirSync(codexFolder, { recursive: true });
    fs.writeFileSync(codexFile, '# mine\nmodel = "gpt-5"\n');
    // Another program (as `codex mcp add` would) adds its entry the moment apply starts its write
    // beside the file, twice: the first two writes apply starts both meet a change.
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
         let added = 0;
         fs.watch(${JSON.stringify(codexFolder)}, (event, name) => {
           if (added >= 2 || name === null || !name.startsWith('config.toml.')) return;
           added += 1;
           fs.appendFileSync(${JSON.stringify(codexFile)}, '\\n[mcp_servers.user' + added + ']\\ncommand = "node"\\n');
           console.log('added ' + added);
           if (added === 2) setTimeout(() => process.exit(0), 50);
         });
         console.log('watching');`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    helpers.push(writer);
    let printed = '';
    await new Promise<void>((ready) =>
      writer.stdout?.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        if (printed.includes('watching')) ready();
      }),
    );
    const run = loadout(ws.home, ['apply', '--runtime', 'codex', '--json']);
    // The other program's appends may land after apply ended (its watch event can come late on a
    // busy machine): wait until it said it wrote, then read; what it wrote must be there either way.
    for (const deadline = Date.now() + 5000; !printed.includes('added 1') && Date.now() < deadline; )
      await new Promise((done) => setTimeout(done, 20));
    await new Promise((done) => setTimeout(done, 100));
    const text = fs.readFileSync(codexFile, 'utf8');
    expect(printed).toContain('added 1');
    // Whatever apply did, nothing the other program wrote is lost.
    expect(text).toContain('[mcp_servers.user1]');
    if (printed.includes('added 2')) expect(text).toContain('[mcp_servers.user2]');
    expect(text).toContain('model = "gpt-5"');
    // And apply either wrote its servers on a later attempt or said the file kept changing.
    if (run.status === 0) {
      for (let index = 0; index < 6; index += 1) expect(text).toContain(`/opt/server-${index}.js`);
    } else {
      expect(run.stdout + run.stderr).toContain('RUNTIME_CHANGED_DURING_APPLY');
    }
  });

  it.each([['~/.claude.json'], ['~/.codex/config.toml'], ['<project>/.mcp.json'], ['<project>/.codex/config.toml']])(
    '37 L3 a FIFO at %s is refused by name; apply and apply --dry-run end',
    (place) => {
      const ws = workspace({ capabilities: { servers: { 'docs.json': serverDoc(1) } } });
      fs.mkdirSync(path.join(ws.project, '.git'));
      expect(loadout(ws.home, ['trust', ws.project]).status).toBe(0);
      const file = place.replace('~', ws.home).replace('<project>', ws.project);
      fifo(file);
      for (const dryRun of [['--dry-run'], []]) {
        const run = loadout(
          ws.home,
          ['apply', '--project', ws.project, '--runtime', 'claude-code', '--runtime', 'codex', ...dryRun, '--json'],
          { timeoutMs: 10_000 },
        );
        expect(run.status, `apply ${dryRun.join(' ')} hung on the FIFO`).not.toBeNull();
        const refused = findings(run.json<ApplyJson>(), 'MCP_CONFIG_UNREADABLE');
        expect(refused.map((finding) => finding.message)).toEqual([
          expect.stringContaining(`${place} is a FIFO (named pipe), not a regular file`),
        ]);
        expect(run.stdout + run.stderr).not.toContain(ws.home);
      }
      expect(fs.lstatSync(file).isFIFO()).toBe(true);
    },
  );

  it('37 L4 a committed link to a ~/.claude/skills not made yet is a coded finding, no crash and no absolute path', () => {
    const ws = workspace({
      capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } },
      project: { skills: { deploy: { 'SKILL.md': skill('deploy') } } },
    });
    fs.mkdirSync(path.join(ws.project, '.claude'));
    fs.symlinkSync(path.join(ws.home, '.claude', 'skills'), path.join(ws.project, '.claude', 'skills'));
    const run = loadout(ws.home, ['apply', '--project', ws.project, '--json']);
    expect(run.status).toBe(1);
    expect(run.stdout + run.stderr).not.toContain('ENOENT');
    expect(run.stdout + run.stderr).not.toContain(ws.home);
    const refused = findings(run.json<ApplyJson>(), 'RUNTIME_ROOT_OUTSIDE');
    expect(refused.map((finding) => finding.message)).toEqual([
      expect.stringMatching(/^claude-code: <project>\/\.claude\/skills leads out of <project> through a link/),
    ]);
    expect(fs.existsSync(path.join(ws.home, '.claude/skills/notes/SKILL.md'))).toBe(true);
    expect(fs.existsSync(path.join(ws.home, '.claude/skills/deploy'))).toBe(false);
  });

  it.each([
    ['~/.claude.json', '{\n  "history": "caf\xe9 \xff",\n  "numStartups": 2\n}\n'],
    ['~/.codex/config.toml', '# caf\xe9 \xff\nmodel = "gpt-5"\n'],
  ])('37 L6 bytes that are not UTF-8 in %s are kept exactly: the file is refused by name, not rewritten', (place, latin1) => {
    const ws = workspace({ capabilities: { servers: { 'docs.json': serverDoc(1) } } });
    const file = place.replace('~', ws.home);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const bytes = Buffer.from(latin1, 'latin1');
    fs.writeFileSync(file, bytes);
    const run = loadout(ws.home, ['apply', '--runtime', 'claude-code', '--runtime', 'codex', '--json']);
    expect(run.status).toBe(1);
    expect(findings(run.json<ApplyJson>(), 'MCP_CONFIG_NOT_UTF8').map((finding) => finding.message)).toEqual([
      expect.stringContaining(`${place} holds bytes that are not UTF-8 text`),
    ]);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });
});
