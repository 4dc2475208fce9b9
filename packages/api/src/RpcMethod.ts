import { type Session, token } from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';
import type { z } from 'zod';

/** What a JSON-RPC method gets besides its parameters. */
export interface RpcContext {
  /** The process's root container. */
  readonly container: DependencyContainer;
  /** Opens a session for this call (optionally for a project); it is disposed when the call ends. */
  openSession(project?: string | null): Promise<Session>;
}

/**
 * A method on `POST /rpc`, contributed by the package that owns what it does: one registration
 * each. `params` is checked before `handler` runs (a mismatch answers -32602); a `LoadoutError`
 * thrown by the handler answers with its code in `error.data.code`.
 *
 * @example
 * contribute(container, RpcMethods, defineRpcMethod({
 *   name: 'capability.state',
 *   params: z.strictObject({ project: z.string().optional() }),
 *   handler: async ({ project }, context) => resolveState(await context.openSession(project)),
 * }));
 */
export interface RpcMethod<P = unknown> {
  /** `<area>.<verb>`, e.g. `skills.transfer`. */
  readonly name: string;
  readonly params: z.ZodType<P>;
  handler(params: P, context: RpcContext): unknown;
}
export const RpcMethods = token<RpcMethod>('api.rpcMethods');

/** Types a method's handler from its parameter schema; the result is registered as is. */
export function defineRpcMethod<P>(method: RpcMethod<P>): RpcMethod {
  return method as RpcMethod;
}
