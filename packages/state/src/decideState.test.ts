import { describe, expect, it } from 'vitest';
import { decideGate, decideSurfaced } from './decideState.js';
import type { GateConfig } from './GateConfig.js';

function config(values: Record<string, boolean>): GateConfig {
  return {
    file: 'config.json',
    exists: true,
    text: JSON.stringify(values),
    configured: (kind, id, gate) => values[`${kind}/${id}/${gate}`],
  };
}

describe('decideSurfaced', () => {
  it('lets nothing stored lift the install floor', () => {
    expect(decideSurfaced('plugin-disabled', { project: true, global: true })).toEqual({ surfaced: false, decidedBy: 'plugin-disabled' });
    expect(decideSurfaced('plugin-not-installed', undefined)).toEqual({ surfaced: false, decidedBy: 'plugin-not-installed' });
  });

  it('takes the project override, else the global default, else on', () => {
    expect(decideSurfaced('installed', { project: true, global: false })).toEqual({ surfaced: true, decidedBy: 'project-override' });
    expect(decideSurfaced('installed', { project: undefined, global: false })).toEqual({ surfaced: false, decidedBy: 'global-default' });
    expect(decideSurfaced('installed', { project: undefined, global: undefined })).toEqual({
      surfaced: true,
      decidedBy: 'declared-default',
    });
    expect(decideSurfaced('installed', undefined)).toEqual({ surfaced: true, decidedBy: 'declared-default' });
  });
});

describe('decideGate', () => {
  it("takes the project's config, else the owner's, else the declared default", () => {
    const project = config({ 'skill/pdf/ocr': false });
    const global = config({ 'skill/pdf/ocr': true, 'skill/pdf/tables': false });
    expect(decideGate('skill', 'pdf', 'ocr', true, project, global)).toEqual({ configured: false, decidedBy: 'project-config' });
    expect(decideGate('skill', 'pdf', 'tables', true, project, global)).toEqual({ configured: false, decidedBy: 'global-config' });
    expect(decideGate('skill', 'pdf', 'fast', true, project, global)).toEqual({ configured: true, decidedBy: 'declared-default' });
    expect(decideGate('skill', 'pdf', 'ocr', false, null, null)).toEqual({ configured: false, decidedBy: 'declared-default' });
  });
});
