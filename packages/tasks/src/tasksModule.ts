import { contributeRoutes } from '@loadout/api';
import { CapabilityKinds, contribute, contributeLater, type LoadoutModule } from '@loadout/kernel';
import { Lifecycle } from 'tsyringe';
import { taskKind } from './taskKind.js';
import { FileTaskStore, TaskStore } from './TaskStore.js';

/** Registers the task kind, the per-session {@link TaskStore} and the task routes. */
export const tasksModule: LoadoutModule = (container) => {
  contribute(container, CapabilityKinds, taskKind);
  container.register(TaskStore, { useClass: FileTaskStore }, { lifecycle: Lifecycle.ContainerScoped });
  // The routes load with the server, never in a one-shot command.
  contributeLater(container, async () => {
    const { taskRoutes } = await import('./taskRoutes.js');
    return (c) => contributeRoutes(c, 'tasks', taskRoutes);
  });
};
