import fs from 'node:fs';
import path from 'node:path';
import { Database } from '@loadout/db';
import { resolve, SessionLoader } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { CapabilityStateService, CapabilityStateStore } from '../../src/index.js';
import { closeContainers, openContainer, skillFolder, workspace } from '../../src/testing/stateFixture.js';

/**
 * Hostile requests and files against capability state: names that are not what they seem, a
 * `config.json` that is not a file, a write that fails underneath. Each case names the issue-11
 * item it covers.
 */

afterEach(() => {
  closeContainers();
  removeTestdirs();
});

function fixture() {
  const ws = workspace({ capabilities: { skills: { pdf: skillFolder('pdf', { ocr: true }) } } });
  const container = openContainer(ws.places);
  return { ...ws, container, service: resolve(container, CapabilityStateService) };
}

describe('hostile state requests', () => {
  it('11.23 a gate named __proto__ is refused by name, never silently dropped', async () => {
    const { service, places } = fixture();
    // As JSON-RPC hands it over: "__proto__" is the object's own key.
    const desired = JSON.parse('[{ "kind": "skill", "id": "pdf", "gates": { "__proto__": "off", "ocr": "off" } }]') as never;
    const result = await service.setCapabilityState({}, desired);
    expect(result.written).toBe(false);
    expect(result.errors.map((error) => error.toJSON())).toEqual([
      { code: 'STATE_GATE_UNDECLARED', message: 'skill/pdf: gate "__proto__" is not declared (declared: ocr)' },
    ]);
    expect(fs.existsSync(path.join(places.capabilitiesDir, 'config.json'))).toBe(false);
  });

  it('S5 a write that fails underneath keeps its code and its cause', async () => {
    const { service, container } = fixture();
    // A real SQLite refusal: the connection may read but not write.
    resolve(container, Database).pragma('query_only = ON');
    const result = await service.setCapabilityState({}, [{ kind: 'skill', id: 'pdf', enabled: false }]);
    expect(result.errors).toHaveLength(1);
    const [error] = result.errors;
    expect(error).toMatchObject({ code: 'STATE_WRITE_FAILED', category: 'failed' });
    expect(error?.cause).toMatchObject({ code: 'SQLITE_READONLY' });
    expect(JSON.parse(JSON.stringify(result)).errors).toEqual([
      { code: 'STATE_WRITE_FAILED', message: expect.stringMatching(/readonly database/) },
    ]);
    resolve(container, Database).pragma('query_only = OFF');
    expect(await resolve(container, CapabilityStateStore).surfacedAt('skill', 'pdf', null)).toBeUndefined();
  });

  it('S5 every refusal carries its own code', async () => {
    const { service } = fixture();
    const result = await service.setCapabilityState({}, [
      { kind: 'skill', id: 'nope', enabled: false },
      { kind: 'widget', id: 'x', enabled: false },
      { kind: 'skill', id: 'pdf', gates: { ocr: 'maybe' } },
    ]);
    expect(result.errors.map((error) => error.code)).toEqual(['STATE_CAPABILITY_UNKNOWN', 'STATE_KIND_UNKNOWN', 'STATE_VALUE_INVALID']);
  });
});

describe('hostile config.json', () => {
  it('11.15 a config.json that is a folder is a diagnostic in sessions and a clear refusal in state', async () => {
    const { container, service, places, project } = fixture();
    fs.mkdirSync(path.join(places.capabilitiesDir, 'config.json'));
    fs.mkdirSync(path.join(project, '.agents/config.json'));

    const session = await container.resolve(SessionLoader).open({ project });
    expect(session.recordsOf('skill').map((record) => record.id)).toEqual(['pdf']);
    const invalid = session.diagnostics.filter((d) => d.code === 'STATE_CONFIG_INVALID');
    expect(invalid).toHaveLength(2);
    expect(invalid[0]?.message).toMatch(/config\.json: is a folder, not a regular file/);

    await expect(service.resolveCapabilityState({})).rejects.toMatchObject({
      code: 'STATE_CONFIG_INVALID',
      message: expect.stringMatching(/config\.json: is a folder/),
    });
  });
});
