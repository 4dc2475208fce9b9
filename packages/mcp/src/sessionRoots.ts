import { isInside } from '@loadout/files';
import type { CapabilityRecord, Root, Session } from '@loadout/kernel';
import { ResourceNotFoundError } from './McpErrors.js';

/** The session root a record was read from (a plugin's root carries its layout: a manifest's servers). */
export function sessionRootOf(session: Session, record: CapabilityRecord): Root {
  const root = session.roots.find(
    (candidate) => candidate.plugin === record.plugin && candidate.level === record.level && isInside(candidate.dir, record.path),
  );
  if (root === undefined) throw new ResourceNotFoundError(record.path, 'its root is no longer part of this session');
  return root;
}

/** The folder of the session root a record was read from: what its document may not leave. */
export function rootOf(session: Session, record: CapabilityRecord): string {
  return sessionRootOf(session, record).dir;
}
