import type { RouteContext } from '@loadout/api';
import { SessionLoader } from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';

/** What every route gets: sessions opened per call and disposed after, and the log. */
export function createRouteContext(container: DependencyContainer, log: (line: string) => void): RouteContext {
  const loader = container.resolve(SessionLoader);
  return {
    log,
    withSession: async (project, work, options = {}) => {
      const session = await loader.open({ project: project ?? null, ...(options.kinds === undefined ? {} : { kinds: options.kinds }) });
      try {
        return await work(session);
      } finally {
        session.dispose();
      }
    },
  };
}
