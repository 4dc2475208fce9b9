import type { ClientVersionFacts, ClientVersions } from '../RuntimeAdapter.js';

/** `a` compared with `b`, both `N.N.N` (more or fewer parts compare as zeros). */
export function compareVersions(a: string, b: string): number {
  const left = a.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const right = b.split('.').map((part) => Number.parseInt(part, 10) || 0);
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * The facts to plan an installed version against: the newest measured version not newer than it;
 * the oldest measured one for an older client. Null when `versions` is empty.
 */
export function factsForVersion(client: ClientVersions, installed: string): ClientVersionFacts | null {
  let chosen: ClientVersionFacts | null = client.versions[0] ?? null;
  for (const facts of client.versions) if (compareVersions(facts.version, installed) <= 0) chosen = facts;
  return chosen;
}

/** The first `N.N.N` in a client's `--version` output; null when there is none. */
export function versionIn(output: string): string | null {
  return /\b(\d+\.\d+\.\d+)\b/.exec(output)?.[1] ?? null;
}
