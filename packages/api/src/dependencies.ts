import { type Token, WiringError } from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';

/** A service a route or method needs: a typed token, or a class registered under itself. */
export type Dependency<T = unknown> = Token<T> | (abstract new (...args: never[]) => T);

/** What a route or method declares it needs, by the name its handler reads it under. */
export type Dependencies = Readonly<Record<string, Dependency>>;

/** The services a declaration names, typed. */
export type Resolved<D extends Dependencies> = { readonly [K in keyof D]: D[K] extends Dependency<infer T> ? T : never };

/**
 * Resolves what `who` declares it needs, once, when the app is built: a dependency nothing
 * registers fails here, naming `who` (the route or method and its contributor) and the token,
 * rather than at the first request.
 *
 * @throws WiringError
 */
export function resolveDependencies(container: DependencyContainer, who: string, deps: Dependencies): Record<string, unknown> {
  const resolved: Record<string, unknown> = {};
  for (const [name, dependency] of Object.entries(deps)) {
    if (!container.isRegistered(dependency as never, true)) {
      throw new WiringError(`${who} needs ${dependencyName(dependency)} (as "${name}"), which no module registers`);
    }
    resolved[name] = container.resolve(dependency as never);
  }
  return resolved;
}

function dependencyName(dependency: Dependency): string {
  return typeof dependency === 'symbol' ? (dependency.description ?? 'a token') : dependency.name;
}
