import { CapabilityKinds, contribute, type LoadoutModule } from '@loadout/kernel';
import { Lifecycle } from 'tsyringe';
import { taskKind } from './taskKind.js';
import { FileTaskStore, TaskStore } from './TaskStore.js';

/** Registers the task kind, the per-session {@link TaskStore} and the task routes (loaded by the server only). */
export const tasksModule: LoadoutModule = {
  name: 'tasks',
  now: (container) => {
    contribute(container, CapabilityKinds, taskKind);
    container.register(TaskStore, { useClass: FileTaskStore }, { lifecycle: Lifecycle.ContainerScoped });
  },
  routes: async () => (await import('./taskRoutes.js')).taskRoutes,
};
