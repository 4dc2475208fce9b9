import { contribute, type Session, token } from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';
import type { z } from 'zod';
import type { Dependencies, Resolved } from './dependencies.js';

/** What a JSON-RPC method gets besides its parameters and its dependencies. */
export interface RpcContext {
  /** Opens a session for this call (optionally for a project); it is disposed when the call ends. */
  openSession(project?: string | null): Promise<Session>;
}

/**
 * A method on `POST /rpc`, contributed by the package that owns what it does: one registration
 * each. It declares what it needs: `deps`, typed tokens resolved once when the server is built (a
 * token nothing registers fails the start, naming the method), and `params`, a schema checked
 * before `handler` runs (a mismatch answers -32602). A `LoadoutError` thrown by the handler
 * answers with its code in `error.data.code`.
 *
 * @example
 * defineRpcMethod({
 *   name: 'capability.state',
 *   params: z.strictObject({ project: z.string().optional() }),
 *   deps: { state: CapabilityStateService },
 *   handler: ({ project }, { state }) => state.resolveCapabilityState({ project: project ?? null }),
 * });
 */
export interface RpcMethodDefinition<P, D extends Dependencies> {
  /** `<area>.<verb>`, e.g. `skills.transfer`. */
  readonly name: string;
  readonly params: z.ZodType<P>;
  readonly deps?: D;
  handler(params: P, deps: Resolved<D>, context: RpcContext): unknown;
}

/** A method as it is registered: its types erased, its contributor named by {@link contributeRpcMethods}. */
export interface RpcMethod {
  readonly name: string;
  readonly params: z.ZodType;
  readonly deps: Dependencies;
  /** The package that contributed it, named in wiring errors. */
  readonly contributor?: string;
  handler(params: unknown, deps: Readonly<Record<string, unknown>>, context: RpcContext): unknown;
}
export const RpcMethods = token<RpcMethod>('api.rpcMethods');

/** Types a method's handler from its parameter schema and dependencies; the result is registered as is. */
export function defineRpcMethod<P, D extends Dependencies = Record<never, never>>(method: RpcMethodDefinition<P, D>): RpcMethod {
  return { ...method, deps: method.deps ?? {} } as unknown as RpcMethod;
}

/** Contributes `methods` under `contributor` (the package's name), which wiring errors name. */
export function contributeRpcMethods(container: DependencyContainer, contributor: string, methods: readonly RpcMethod[]): void {
  for (const method of methods) contribute(container, RpcMethods, { ...method, contributor });
}
