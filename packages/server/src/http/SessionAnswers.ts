import { createHash } from 'node:crypto';
import { jsonText, reply, type RouteReply } from '@loadout/api';
import { resolveAll, CapabilityKinds, SessionLoader } from '@loadout/kernel';
import { InvalidInputError } from '@loadout/files';
import type { DependencyContainer } from 'tsyringe';

/** How many (project, kinds) answers are kept at once; the least recently used goes first. */
const KEPT_ANSWERS = 16;

interface Kept {
  readonly stamp: string;
  /** The answer's JSON as UTF-8: encoded once, sent as is by every request until the stamp moves. */
  readonly body: Buffer;
  readonly etag: string;
}

/**
 * `GET /api/session` answers, serialized once per change: the body of each (project, kinds) is
 * kept with the {@link SessionLoader.changeStamp} it was made under, and sent again as long as the
 * stamp has not moved, with a strong `ETag` (a hash of the body, so it survives a restart); a
 * request whose `If-None-Match` names it gets `304` and no body. Without a watch cache (there is no
 * stamp to trust) every request opens a session.
 */
export class SessionAnswers {
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly container: DependencyContainer) {}

  /** The answer for `project` (as given) and `kinds` (singular names or session keys), given the request's `If-None-Match`. */
  async answer(project: string | null, kinds: readonly string[] | undefined, ifNoneMatch: string | undefined): Promise<RouteReply> {
    const loader = this.container.resolve(SessionLoader);
    const real = project === null ? null : SessionLoader.resolveProject(project);
    const only = kinds === undefined ? undefined : this.kindNames(kinds);
    const key = `${real ?? ''}\0${only?.join(',') ?? '*'}`;
    // Requests that arrive together share the first check of the disk that starts after all of them came.
    const arrived = loader.ticket();
    await loader.settle();
    // Taken before the session is read: a change while it is read moves the stamp, and the next request reads again.
    const stamp = loader.changeStamp(arrived);
    let kept = this.kept.get(key);
    if (kept === undefined || stamp === null || kept.stamp !== stamp) {
      const session = await loader.open({ project: real, checkedSince: arrived, ...(only === undefined ? {} : { kinds: only }) });
      let body: Buffer;
      try {
        body = Buffer.from(JSON.stringify(session.toJSON()));
      } finally {
        session.dispose();
      }
      kept = { stamp: stamp ?? '', body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` };
      if (stamp !== null) this.keep(key, kept);
    } else {
      this.keep(key, kept);
    }
    const headers = { etag: kept.etag };
    if (ifNoneMatch !== undefined && matches(ifNoneMatch, kept.etag)) return reply(304, undefined, headers);
    return jsonText(kept.body, 200, headers);
  }

  /** The singular names of the kinds asked for, in the session's order; an unknown one is refused by name. */
  private kindNames(asked: readonly string[]): string[] {
    const known = resolveAll(this.container, CapabilityKinds);
    for (const name of asked) {
      if (!known.some((kind) => kind.kind === name || kind.sessionKey === name)) {
        throw new InvalidInputError(
          'KIND_UNKNOWN',
          `kinds: "${name.slice(0, 64)}" is not a kind of capability; known: ${known.map((kind) => kind.sessionKey).join(', ')}`,
        );
      }
    }
    return known.filter((kind) => asked.includes(kind.kind) || asked.includes(kind.sessionKey)).map((kind) => kind.kind);
  }

  /** Most recently used last, so the oldest goes first. */
  private keep(key: string, kept: Kept): void {
    this.kept.delete(key);
    this.kept.set(key, kept);
    while (this.kept.size > KEPT_ANSWERS) this.kept.delete(this.kept.keys().next().value as string);
  }
}

/** Whether an `If-None-Match` list names `etag` (weak comparison, as RFC 9110 asks for it), or is `*`. */
function matches(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*');
}
