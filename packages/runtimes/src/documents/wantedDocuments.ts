import type { AgentRecord } from '@loadout/agents';
import type { CommandRecord } from '@loadout/commands';
import { hookHandlerOf, type HookRecord } from '@loadout/hooks';
import type { CapabilityRecord, Diagnostic, Session } from '@loadout/kernel';
import { isInside, trackedFs } from '@loadout/files';
import type { WriteTarget } from '../RuntimeAdapter.js';
import type { SourceDocument } from './planDocuments.js';

const KINDS = ['agent', 'command', 'hook'] as const;

/**
 * What each kind of runtime place should hold, as for skills: the project's places the project's
 * own agents, commands and hooks (and global ones turned on for this project only), the user's
 * places every one on in the global view. A held one (a hook of an unapproved plugin or an
 * untrusted project) is never written, so what was written of it before is retired; an off one
 * is not in the session at all.
 */
export function wantedDocuments(session: Session, global: Session, findings: Diagnostic[]): SourceDocument[] {
  const wants: SourceDocument[] = [];
  const reported = new Set<string>();
  const take = (record: CapabilityRecord, target: WriteTarget, from: Session): void => {
    if (record.held !== undefined) {
      const key = recordKey(record);
      if (reported.has(key)) return;
      reported.add(key);
      findings.push({
        code: 'CAPABILITY_UNTRUSTED',
        severity: 'warning',
        path: record.path,
        message: `${record.kind} "${record.id}" is held (${record.held.decidedBy}): ${record.held.reason}; it is not written into any runtime`,
      });
      return;
    }
    const document = sourceDocument(record, target, from);
    if (document !== null) wants.push(document);
  };
  for (const kind of KINDS) {
    const globalRecords = global.recordsOf(kind);
    const globalKeys = new Set(globalRecords.map(recordKey));
    const projectRecords = session.project === null ? [] : session.recordsOf(kind);
    for (const record of projectRecords) {
      if (record.level === 'project' || !globalKeys.has(recordKey(record))) take(record, 'project', session);
    }
    const projectIds = new Set(projectRecords.map((record) => record.id));
    for (const record of globalRecords) {
      take(record, 'user', global);
      if (session.project !== null && !projectIds.has(record.id)) {
        findings.push({
          code: 'DOCUMENT_OFF_IN_PROJECT_ONLY',
          severity: 'warning',
          message: `${kind} "${record.id}" is off for this project but on globally; a runtime's user folder serves every project, so it stays there`,
        });
      }
    }
  }
  return wants;
}

function sourceDocument(record: CapabilityRecord, target: WriteTarget, session: Session): SourceDocument | null {
  const root = session.roots.find(
    (candidate) => candidate.plugin === record.plugin && candidate.level === record.level && isInside(candidate.dir, record.path),
  );
  const base = {
    id: record.id,
    plugin: record.plugin,
    target,
    source: { id: record.id, level: record.level, plugin: record.plugin },
    sourcePath: record.path,
    description: record.description,
    pluginRoot: record.plugin === null ? null : (root?.dir ?? null),
  };
  if (record.kind === 'hook') {
    const hook = record as HookRecord;
    const handler = hookHandlerOf(hook);
    if (handler === null) return null;
    return { ...base, kind: 'hook', text: null, hook: { event: hook.event, matcher: hook.matcher, handler } };
  }
  let text: string;
  try {
    text = trackedFs.readFileSync(record.path, 'utf8');
  } catch {
    // Gone since the session read it: the next plan sees it as it is then.
    return null;
  }
  return { ...base, kind: (record as AgentRecord | CommandRecord).kind, text, hook: null };
}

function recordKey(record: CapabilityRecord): string {
  return `${record.id}\0${record.plugin ?? ''}\0${record.path}`;
}
