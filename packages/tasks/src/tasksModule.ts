import { CapabilityKinds, contribute, type LoadoutModule } from '@loadout/kernel';
import { Lifecycle } from 'tsyringe';
import { taskKind } from './taskKind.js';
import { FileTaskStore, TaskStore } from './TaskStore.js';

/** Registers the task kind and the per-session {@link TaskStore}. */
export const tasksModule: LoadoutModule = (container) => {
  contribute(container, CapabilityKinds, taskKind);
  container.register(TaskStore, { useClass: FileTaskStore }, { lifecycle: Lifecycle.ContainerScoped });
};
