import type { RouteContext } from '@loadout/api';
import { SessionLoader } from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';

/** What every route gets: the root container, sessions opened per call and disposed after, the log. */
export function createRouteContext(container: DependencyContainer, log: (line: string) => void): RouteContext {
  return {
    container,
    log,
    withSession: async (project, work, options = {}) => {
      const session = await container.resolve(SessionLoader).open({ project: project ?? null, ...(options.kinds === undefined ? {} : { kinds: options.kinds }) });
      try {
        return await work(session);
      } finally {
        session.dispose();
      }
    },
  };
}
