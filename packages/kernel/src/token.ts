import type { DependencyContainer } from 'tsyringe';
import { WiringError } from './WiringError.js';

/**
 * A typed injection token. The phantom `__type` carries the service type so that
 * {@link resolve} and {@link resolveAll} need no type argument at call sites.
 *
 * @example
 * export interface TaskStore { listTasks(): TaskRecord[] }
 * export const TaskStore = token<TaskStore>('tasks.store');
 */
export type Token<T> = symbol & { readonly __type?: T };

/** Creates a token whose id reads `'<package>.<name>'`. */
export function token<T>(id: string): Token<T> {
  return Symbol(id) as Token<T>;
}

/** Resolves a typed token, naming the token when nothing is registered under it. */
export function resolve<T>(container: DependencyContainer, service: Token<T>): T {
  if (!container.isRegistered(service, true)) {
    throw new WiringError(`${service.description ?? 'a service'} is not registered`);
  }
  return container.resolve<T>(service);
}

/** Every registration under a contribution token, in registration order; none is an empty list. */
export function resolveAll<T>(container: DependencyContainer, contribution: Token<T>): T[] {
  return container.isRegistered(contribution, true) ? container.resolveAll<T>(contribution) : [];
}

/** Adds `value` to a contribution token (or registers a single service) with its type checked. */
export function contribute<T>(container: DependencyContainer, contribution: Token<T>, value: T): void {
  container.register<T>(contribution, { useValue: value });
}
