import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeApplier } from '../src/index.js';
import { LOADOUT_CONFIG_FILE, RuntimeChoices } from '../src/RuntimeSelection.js';
import { KNOWN_ADAPTERS } from '../src/runtimesModule.js';
import { closeLoadouts, machine, openLoadout, skill, snapshot } from '../src/testing/index.js';

afterEach(() => {
  closeLoadouts();
  removeTestdirs();
});

const known = KNOWN_ADAPTERS.map((adapter) => adapter.name);
const server = JSON.stringify({ name: 'notes-server', command: 'node', args: ['server.js'] });

describe('which runtimes an apply writes', () => {
  it('a machine with only ~/.claude: apply writes Claude Code alone and says which it skipped and why', async () => {
    const m = machine({
      installed: [],
      home: { '.claude': {} },
      capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } }, servers: { 'notes-server.json': server } },
    });
    const result = await resolve(openLoadout(m), RuntimeApplier).apply({});
    expect(result.ok).toBe(true);
    expect(result.selection.basis).toBe('detected');
    expect(result.runtimes.map((part) => part.runtime)).toEqual(['claude-code']);
    const claude = result.selection.runtimes.find((entry) => entry.runtime === 'claude-code');
    expect(claude).toMatchObject({
      detected: true,
      selected: true,
      home: '$CLAUDE_CONFIG_DIR',
      reason: 'detected: $CLAUDE_CONFIG_DIR exists',
    });
    for (const entry of result.selection.runtimes.filter((candidate) => candidate.runtime !== 'claude-code')) {
      expect(entry.selected, entry.runtime).toBe(false);
      expect(entry.reason, entry.runtime).toMatch(/^not detected: none of .* is on this machine$/);
    }
    expect(result.selection.runtimes.find((entry) => entry.runtime === 'codex')?.reason).toBe(
      'not detected: none of `codex`, $CODEX_HOME is on this machine',
    );
    // Claude Code got its skill and its server; nothing else under the home folder was made.
    expect(fs.existsSync(path.join(m.home, '.claude', 'skills', 'notes', 'SKILL.md'))).toBe(true);
    // With CLAUDE_CONFIG_DIR set, Claude Code keeps its .claude.json in that folder.
    expect(JSON.parse(fs.readFileSync(path.join(m.home, '.claude', '.claude.json'), 'utf8')).mcpServers).toHaveProperty('notes-server');
    expect(fs.readdirSync(m.home).sort()).toEqual(['.claude', 'work']);
  });

  it('a chosen runtime is written even when not detected; forgetting the choice goes back to the detected ones', async () => {
    const m = machine({ installed: ['claude-code'], capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } } });
    const applier = resolve(openLoadout(m), RuntimeApplier);
    await RuntimeChoices.write(m.places.dataDir, ['codex'], known);
    const chosen = await applier.apply({ mode: 'dry-run' });
    expect(chosen.selection).toMatchObject({ basis: 'chosen', chosen: ['codex'] });
    expect(chosen.runtimes.map((part) => part.runtime)).toEqual(['codex']);
    expect(chosen.selection.runtimes.find((entry) => entry.runtime === 'codex')?.reason).toBe('chosen (not found on this machine)');
    expect(chosen.selection.runtimes.find((entry) => entry.runtime === 'claude-code')).toMatchObject({
      detected: true,
      selected: false,
      reason: 'not chosen',
    });
    await RuntimeChoices.write(m.places.dataDir, null, known);
    const detected = await applier.apply({ mode: 'dry-run' });
    expect(detected.selection).toMatchObject({ basis: 'detected', chosen: null });
    expect(detected.runtimes.map((part) => part.runtime)).toEqual(['claude-code']);
    // Named runtimes win over the choice for one run.
    await RuntimeChoices.write(m.places.dataDir, ['codex'], known);
    const named = await applier.apply({ mode: 'dry-run', runtimes: ['goose'] });
    expect(named.selection.basis).toBe('named');
    expect(named.runtimes.map((part) => part.runtime)).toEqual(['goose']);
  });

  it('the choice is edited in place: other settings keep their bytes; an unknown name or a damaged file changes nothing', async () => {
    const m = machine({ installed: [] });
    const file = path.join(m.places.dataDir, LOADOUT_CONFIG_FILE);
    fs.mkdirSync(m.places.dataDir, { recursive: true });
    const mine = '{\n  "theme": "dark",\n  "runtimes": {\n    "note": "mine"\n  }\n}\n';
    fs.writeFileSync(file, mine);
    await RuntimeChoices.write(m.places.dataDir, ['claude-code', 'codex', 'claude-code'], known);
    const written = fs.readFileSync(file, 'utf8');
    expect(JSON.parse(written)).toEqual({ theme: 'dark', runtimes: { note: 'mine', chosen: ['claude-code', 'codex'] } });
    expect(written.startsWith('{\n  "theme": "dark",\n  "runtimes": {\n    "note": "mine",\n    "chosen": [')).toBe(true);
    expect(RuntimeChoices.read(m.places.dataDir).chosen).toEqual(['claude-code', 'codex']);

    const before = snapshot(m.places.dataDir);
    await expect(RuntimeChoices.write(m.places.dataDir, ['no-such-agent'], known)).rejects.toMatchObject({ code: 'RUNTIME_UNKNOWN' });
    expect(snapshot(m.places.dataDir)).toEqual(before);

    await RuntimeChoices.write(m.places.dataDir, null, known);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ theme: 'dark', runtimes: { note: 'mine' } });

    fs.writeFileSync(file, '{"runtimes": {"chosen": "claude-code"}}');
    const damaged = snapshot(m.places.dataDir);
    await expect(RuntimeChoices.write(m.places.dataDir, ['codex'], known)).rejects.toMatchObject({ code: 'RUNTIME_CONFIG_INVALID' });
    expect(snapshot(m.places.dataDir)).toEqual(damaged);
    await expect(resolve(openLoadout(m), RuntimeApplier).apply({ mode: 'dry-run' })).rejects.toMatchObject({
      code: 'RUNTIME_CONFIG_INVALID',
    });
  });
});
