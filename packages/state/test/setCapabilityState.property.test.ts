import fs from 'node:fs';
import path from 'node:path';
import { Database } from '@loadout/db';
import { resolve } from '@loadout/kernel';
import { removeTestdirs, type TreeDescription } from '@loadout/files/testing';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type CapabilityStateEntry, CapabilityStateService, CapabilityStateStore, type DesiredCapability } from '../src/index.js';
import { capabilityMarkdown, closeContainers, installPlugin, openContainer, workspace } from '../src/testing/index.js';

/** Cases per run; each builds a fresh workspace and database and makes several writes. */
const CASES = 60;
const WRITES_PER_CASE = 4;
/** fast-check's seed: fixed, so a run is the same every time; a failure prints the seed and path that replay it. */
const SEED = Number(process.env.LOADOUT_PROPERTY_SEED ?? 20261202);

/**
 * The few kinds of choice the generators below make, drawn from fast-check's `gen()`: each case's
 * later choices may depend on what it found (the states a write starts from), and a failing case
 * is replayed and shrunk by fast-check.
 */
function choices(g: fc.GeneratorValue) {
  const int = (n: number): number => g(fc.nat, { max: n - 1 });
  const pick = <T>(items: readonly T[]): T => g(fc.constantFrom, ...items) as T;
  const chance = (p: number): boolean => g(fc.integer, { min: 0, max: 99 }) < p * 100;
  const subset = <T>(items: readonly T[], max: number): T[] => g(fc.subarray<T>, [...items], { maxLength: Math.min(max, items.length) });
  return { int, pick, chance, subset };
}
type Random = ReturnType<typeof choices>;

const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'omega'];
const GATES = ['fast', 'ocr', 'write'];

function gatesFor(rng: Random): Record<string, boolean> {
  return Object.fromEntries(rng.subset(GATES, 2).map((gate) => [gate, rng.chance(0.5)]));
}

function kindFolders(rng: Random): TreeDescription {
  const skills: Record<string, TreeDescription> = {};
  for (const name of rng.subset(NAMES, 3)) skills[name] = { 'SKILL.md': capabilityMarkdown(name, gatesFor(rng)) };
  const affordances: Record<string, string> = {};
  for (const name of rng.subset(NAMES, 2)) affordances[`${name}.md`] = capabilityMarkdown(name, gatesFor(rng));
  return { skills, affordances };
}

/** Random gates already configured in a config.json, for real capabilities and made-up ones, beside other keys. */
function configText(rng: Random): string | null {
  if (rng.chance(0.3)) return null;
  const gates: Record<string, Record<string, unknown>> = {};
  for (const name of rng.subset([...NAMES, 'ghost'], 3)) {
    const key = `${rng.pick(['skill', 'affordance'])}/${rng.chance(0.2) ? name.toUpperCase() : name}`;
    gates[key] = Object.fromEntries(rng.subset(GATES, 2).map((gate) => [gate, rng.pick([true, false, 'on', 'off'])]));
  }
  return JSON.stringify({ editor: 'vim', gates, list: [1, 2, 3] }, null, rng.pick([2, 4]));
}

const label = (entry: { kind: string; id: string }): string => `${entry.kind}/${entry.id.toLowerCase()}`;

interface Asked {
  enabled?: boolean;
  gates: Map<string, boolean>;
}

/**
 * A random batch of desired states against the capabilities `known` in the scope, with invalid
 * items mixed in now and then. Returns whether the batch as a whole is valid, worked out from the
 * generator's own knowledge, and what a valid batch asks for.
 */
function desiredBatch(rng: Random, known: readonly CapabilityStateEntry[]) {
  const desired: DesiredCapability[] = [];
  const asked = new Map<string, Asked>();
  let valid = true;
  const count = 1 + rng.int(3);
  for (let n = 0; n < count; n += 1) {
    const roll = rng.int(20);
    if (roll === 0 || known.length === 0) {
      desired.push({ kind: 'skill', id: 'zeta', enabled: rng.chance(0.5) });
      valid = false;
      continue;
    }
    if (roll === 1) {
      desired.push({ kind: 'gadget', id: rng.pick(NAMES), enabled: false });
      valid = false;
      continue;
    }
    const entry = rng.pick(known);
    const id = rng.chance(0.3) ? entry.id.toUpperCase() : entry.id;
    const item: { kind: string; id: string; enabled?: unknown; gates?: Record<string, unknown> } = { kind: entry.kind, id };
    const current = asked.get(label(entry)) ?? { gates: new Map<string, boolean>() };
    asked.set(label(entry), current);
    if (rng.chance(0.6)) {
      if (roll === 2) {
        item.enabled = rng.pick(['maybe', 1, null, 'yes']);
        valid = false;
      } else {
        const enabled = rng.chance(0.5);
        item.enabled = rng.pick([enabled, enabled ? 'on' : 'off']);
        if (enabled && entry.decidedBy === 'plugin-disabled') valid = false;
        if (current.enabled !== undefined && current.enabled !== enabled) valid = false;
        current.enabled = enabled;
      }
    }
    const declared = Object.keys(entry.gates);
    if (rng.chance(0.6)) {
      item.gates = {};
      if (roll === 3 || declared.length === 0) {
        item.gates['nosuch'] = true;
        valid = false;
      }
      for (const gate of rng.subset(declared, 2)) {
        if (roll === 4) {
          item.gates[gate] = 'sometimes';
          valid = false;
          continue;
        }
        const value = rng.chance(0.5);
        item.gates[rng.chance(0.2) ? gate.toUpperCase() : gate] = rng.pick([value, value ? 'on' : 'off']);
        if (current.gates.has(gate) && current.gates.get(gate) !== value) valid = false;
        current.gates.set(gate, value);
      }
    }
    desired.push(item as DesiredCapability);
  }
  return { desired, valid, asked };
}

afterEach(() => {
  closeContainers();
  removeTestdirs();
});

describe('setCapabilityState over random workspaces and random desired states', { timeout: 120_000 }, () => {
  it(`resolves to exactly what was asked, or changes nothing and says why (${CASES} cases, seed ${SEED})`, async () => {
    let applied = 0;
    let refused = 0;
    const oneCase = async (g: fc.GeneratorValue): Promise<void> => {
      const rng = choices(g);
      const ws = workspace({ capabilities: kindFolders(rng), project: kindFolders(rng) });
      const container = openContainer(ws.places);
      for (const [index, plugin] of ['one', 'two'].slice(0, rng.int(3)).entries()) {
        installPlugin(container, ws.places, plugin, kindFolders(rng), index === 0 ? rng.chance(0.5) : true);
      }
      const configFiles = [path.join(ws.places.capabilitiesDir, 'config.json'), path.join(ws.project, '.agents', 'config.json')];
      for (const file of configFiles) {
        const text = configText(rng);
        if (text !== null) fs.writeFileSync(file, text);
      }
      const store = resolve(container, CapabilityStateStore);
      for (const name of rng.subset(NAMES, 3)) {
        store.setSurfaced(rng.pick(['skill', 'affordance']), name, rng.chance(0.5) ? null : ws.project, rng.chance(0.5));
      }
      const service = resolve(container, CapabilityStateService);
      const db = resolve(container, Database);
      const rows = (): unknown =>
        db.prepare('SELECT kind, id, scope, surfaced, plugin FROM capability_state ORDER BY kind, id, scope').all();
      const files = (): (string | null)[] => configFiles.map((file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null));

      for (let write = 0; write < WRITES_PER_CASE; write += 1) {
        const scope = rng.chance(0.5) ? {} : { project: ws.project };
        const before = await service.resolveCapabilityState(scope);
        const { desired, valid, asked } = desiredBatch(rng, before);
        const context = `write ${write}, scope ${JSON.stringify(scope)}, desired ${JSON.stringify(desired)}`;
        const rowsBefore = rows();
        const filesBefore = files();

        const result = await service.setCapabilityState(scope, desired);

        expect(result.errors.length > 0, `${context}: errors ${JSON.stringify(result.errors)}`).toBe(!valid);
        const after = await service.resolveCapabilityState(scope);
        expect(result.capabilities, context).toEqual(after);
        if (!valid) {
          refused += 1;
          expect(rows(), context).toEqual(rowsBefore);
          expect(files(), context).toEqual(filesBefore);
          expect(after, context).toEqual(before);
          expect(result.warnings, context).toEqual([]);
          expect(result.written, context).toBe(false);
          continue;
        }
        applied += 1;
        const expectedWarnings: string[] = [];
        for (const entry of after) {
          const wanted = asked.get(label(entry));
          const previous = before.find((candidate) => label(candidate) === label(entry));
          if (wanted === undefined) {
            expect(entry, `${context}: untouched ${label(entry)} changed`).toEqual(previous);
            continue;
          }
          if (wanted.enabled !== undefined) expect(entry.enabled, `${context}: ${label(entry)} enabled`).toBe(wanted.enabled);
          else expect(entry.enabled, `${context}: ${label(entry)} enabled untouched`).toBe(previous?.enabled);
          for (const [gate, value] of wanted.gates) {
            expect(entry.gates[gate]?.configured, `${context}: ${label(entry)} gate ${gate}`).toBe(value);
            expect(entry.gates[gate]?.active, `${context}: ${label(entry)} gate ${gate} active`).toBe(entry.enabled && value);
          }
          const gates = Object.values(entry.gates);
          if (entry.enabled && gates.length > 0 && gates.every((gate) => !gate.configured)) expectedWarnings.push(label(entry));
        }
        expect(result.warnings.map((warning) => warning.split(' ')[0]?.toLowerCase()).sort(), context).toEqual(expectedWarnings.sort());
      }
    };
    await fc.assert(fc.asyncProperty(fc.gen(), oneCase), { numRuns: CASES, seed: SEED });
    // The generator must exercise both outcomes, or the property says little.
    expect(applied).toBeGreaterThan(CASES);
    expect(refused).toBeGreaterThan(CASES / 4);
  });
});
