import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import { UsageHookConsent } from '@loadout/usage-hook';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApplyResult, RuntimeApplier } from '../src/index.js';
import { closeLoadouts, machine, type Machine, openLoadout } from '../src/testing/runtimeFixture.js';

afterEach(() => {
  closeLoadouts();
  removeTestdirs();
});

/** The owner's Claude Code settings with a hook of their own on an event the usage hook uses too. */
const SETTINGS = `{
  "theme": "dark",
  "hooks": {
    "PostToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "echo mine" }] }]
  }
}
`;

function world(): { m: Machine; applier: RuntimeApplier } {
  const m = machine({ home: { '.claude': { 'settings.json': SETTINGS } } });
  return { m, applier: resolve(openLoadout(m), RuntimeApplier) };
}

interface HookGroup {
  matcher?: string;
  hooks: { type: string; command: string }[];
}
const claudeHooks = (m: Machine) =>
  (JSON.parse(fs.readFileSync(path.join(m.home, '.claude', 'settings.json'), 'utf8')) as { hooks: Record<string, HookGroup[]> }).hooks;
const usageChanges = (result: ApplyResult, runtime: string) =>
  (result.runtimes.find((part) => part.runtime === runtime)?.changes ?? [])
    .filter((change) => change.name === 'loadout:usage')
    .map((change) => change.action);

describe("Loadout's usage hook in runtimes, with the owner's consent", () => {
  it('is written nowhere until the owner turns it on', async () => {
    const { m, applier } = world();
    const result = await applier.apply({ runtimes: ['claude-code', 'codex'] });
    expect(usageChanges(result, 'claude-code')).toEqual([]);
    expect(fs.readFileSync(path.join(m.home, '.claude', 'settings.json'), 'utf8')).toBe(SETTINGS);
    expect(fs.existsSync(path.join(m.home, '.codex', 'hooks.json'))).toBe(false);
  });

  it("on: one entry per event each runtime has, beside the user's own; --check is clean after; off: gone, byte for byte", async () => {
    const { m, applier } = world();
    UsageHookConsent.read(m.places.dataDir).with(['claude-code', 'codex'], true);
    const checkBefore = await applier.apply({ runtimes: ['claude-code', 'codex'], mode: 'check' });
    expect(checkBefore.upToDate).toBe(false);
    const result = await applier.apply({ runtimes: ['claude-code', 'codex'] });
    expect(result.ok).toBe(true);
    expect(usageChanges(result, 'claude-code')).toEqual(['create', 'create', 'create']);
    // Codex 0.171.0 has no PostToolUseFailure event.
    expect(usageChanges(result, 'codex')).toEqual(['create', 'create']);
    const hooks = claudeHooks(m);
    expect(hooks.PostToolUse?.[0]).toEqual({ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo mine' }] });
    const usageDir = path.join(m.places.dataDir, 'usage');
    const written = hooks.PostToolUse?.[1];
    expect(written?.matcher).toBe('^(Skill|Task|Agent|SlashCommand|mcp__.+)$');
    expect(written?.hooks[0]?.command).toContain(`usage-hook.mjs ${usageDir} claude-code`);
    expect(hooks.UserPromptSubmit?.[0]?.matcher).toBeUndefined();
    expect(Object.keys(hooks).sort()).toEqual(['PostToolUse', 'PostToolUseFailure', 'UserPromptSubmit']);
    const codex = JSON.parse(fs.readFileSync(path.join(m.home, '.codex', 'hooks.json'), 'utf8')) as { hooks: Record<string, HookGroup[]> };
    expect(Object.keys(codex.hooks).sort()).toEqual(['PostToolUse', 'UserPromptSubmit']);
    // No matcher for Codex: it is not confirmed to read one as a regular expression.
    expect(codex.hooks.PostToolUse?.[0]?.matcher).toBeUndefined();
    expect(codex.hooks.PostToolUse?.[0]?.hooks[0]?.command).toContain(`${usageDir} codex`);
    expect((await applier.apply({ runtimes: ['claude-code', 'codex'], mode: 'check' })).upToDate).toBe(true);

    // Off for Claude Code only: its entries leave, Codex keeps its own.
    UsageHookConsent.read(m.places.dataDir).with(['claude-code'], false);
    const off = await applier.apply({ runtimes: ['claude-code', 'codex'] });
    expect(usageChanges(off, 'claude-code')).toEqual(['retire', 'retire', 'retire']);
    expect(usageChanges(off, 'codex')).toEqual([]);
    expect(fs.readFileSync(path.join(m.home, '.claude', 'settings.json'), 'utf8')).toBe(SETTINGS);
    UsageHookConsent.read(m.places.dataDir).with(['codex'], false);
    await applier.apply({ runtimes: ['claude-code', 'codex'] });
    expect(fs.existsSync(path.join(m.home, '.codex', 'hooks.json'))).toBe(false);
  });

  it('a consent file of another shape refuses the plan and changes nothing: each runtime keeps what it has', async () => {
    const { m, applier } = world();
    UsageHookConsent.read(m.places.dataDir).with(['claude-code'], true);
    await applier.apply({ runtimes: ['claude-code'] });
    const before = fs.readFileSync(path.join(m.home, '.claude', 'settings.json'), 'utf8');
    fs.writeFileSync(path.join(m.places.dataDir, 'usage', 'hook.json'), '{"version":1,"runtimes":"all"}');
    const result = await applier.apply({ runtimes: ['claude-code'] });
    expect(result.ok).toBe(false);
    expect(result.findings).toContainEqual(expect.objectContaining({ code: 'USAGE_HOOK_CONSENT_INVALID' }));
    expect(fs.readFileSync(path.join(m.home, '.claude', 'settings.json'), 'utf8')).toBe(before);
  });
});
