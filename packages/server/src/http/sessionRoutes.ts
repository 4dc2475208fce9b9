import type { FastifyInstance } from 'fastify';
import type { ApiContext } from './ApiContext.js';
import { parseRequest, ProjectQuery } from './requestSchemas.js';

/** `GET /api/session?project=DIR`: the session, shaped as `loadout session --json`. `GET /api/health`. */
export function registerSessionRoutes(app: FastifyInstance, api: ApiContext): void {
  app.get('/api/health', async () => ({ ok: true }));
  app.get('/api/session', async (request) => {
    const { project } = parseRequest(ProjectQuery, request.query, 'query');
    return api.withSession(project, (session) => session.toJSON());
  });
}
