import { type ApiRoute, defineRoute, SessionQuery } from '@loadout/api';
import type { DependencyContainer } from 'tsyringe';
import { SessionAnswers } from './SessionAnswers.js';

/**
 * The server's own routes: `GET /api/health` and `GET /api/session?project=DIR&kinds=…`, shaped as
 * `loadout session --json` (only the kinds asked for, when `kinds` is given), serialized once per
 * change and revalidated with `ETag` / `If-None-Match` ({@link SessionAnswers}).
 */
export function sessionRoutes(container: DependencyContainer): readonly ApiRoute[] {
  let answers: SessionAnswers | null = null;
  return [
    defineRoute({ method: 'GET', path: '/api/health', access: 'public', handle: () => ({ ok: true }) }),
    defineRoute({
      method: 'GET',
      path: '/api/session',
      access: 'public',
      query: SessionQuery,
      handle: ({ query: { project, kinds }, request }) => {
        answers ??= new SessionAnswers(container);
        const ifNoneMatch = request.headers['if-none-match'];
        return answers.answer(project ?? null, kinds, typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined);
      },
    }),
  ];
}
