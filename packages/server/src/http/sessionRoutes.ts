import { type ApiRoute, defineRoute, parseRequest, ProjectQuery } from '@loadout/api';

/** The server's own routes: `GET /api/health` and `GET /api/session?project=DIR`, shaped as `loadout session --json`. */
export const sessionRoutes: readonly ApiRoute[] = [
  defineRoute({ method: 'GET', path: '/api/health', access: 'public', handle: () => ({ ok: true }) }),
  defineRoute({
    method: 'GET',
    path: '/api/session',
    access: 'public',
    handle: (request, context) => {
      const { project } = parseRequest(ProjectQuery, request.query, 'query');
      return context.withSession(project, (session) => session.toJSON());
    },
  }),
];
