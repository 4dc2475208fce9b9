import type { Diagnostic } from '@loadout/kernel';
import { USAGE_HOOK_EVENTS, USAGE_HOOK_ID, UsageHookConsent, usageHookCommand, usageHookProgram } from '@loadout/usage-hook';
import type { SourceDocument } from './planDocuments.js';
import type { RuntimeDocumentSupport } from './RuntimeDocumentSupport.js';

/**
 * The owner's consent to the usage hook, read once per plan. A consent file of another shape is an
 * error finding and null: then each runtime keeps what it has (see {@link usageHookDocuments}),
 * so a misread neither writes nor takes away an entry.
 */
export function readUsageConsent(dataDir: string, findings: Diagnostic[]): UsageHookConsent | null {
  try {
    return UsageHookConsent.read(dataDir);
  } catch (error) {
    findings.push({ code: 'USAGE_HOOK_CONSENT_INVALID', severity: 'error', message: (error as Error).message });
    return null;
  }
}

/**
 * Loadout's own usage hook as the hook documents one runtime should hold: one entry per event it
 * has, in the owner's settings (never a project's), only while the owner has turned it on for that
 * runtime. Planned like any other hook: recorded in the manifest, retired when turned off, the
 * user's own entries untouched.
 */
export function usageHookDocuments(
  runtime: string,
  support: RuntimeDocumentSupport | null,
  consent: UsageHookConsent | null,
  dataDir: string,
  writtenBefore: boolean,
): SourceDocument[] {
  const settings = support?.hook;
  const on = consent === null ? writtenBefore : consent.isOn(runtime);
  if (!on || settings === undefined || typeof settings === 'string') return [];
  const command = usageHookCommand(runtime, dataDir);
  return USAGE_HOOK_EVENTS.filter(({ event }) => settings.events[event] !== undefined).map(({ event, matcher }) => ({
    kind: 'hook',
    id: USAGE_HOOK_ID,
    plugin: null,
    target: 'user',
    source: { id: USAGE_HOOK_ID, level: 'global', plugin: null },
    sourcePath: usageHookProgram(),
    description: "Loadout's usage hook: records which skills, commands, agents and tools were used",
    text: null,
    // A runtime that reads matchers as something other than a regex is given none: every tool call starts the hook, which records only what it knows.
    hook: { event, matcher: settings.regexMatchers === true ? matcher : null, handler: { type: 'command', command } },
    pluginRoot: null,
  }));
}
