import { type ErrorCategory, exceedsJsonDepth, formatValidationError, isLoadoutError, MAX_JSON_DEPTH, redactCredentials } from '@loadout/kernel';
import type { RpcContext, RpcMethod } from '@loadout/api';

/** The error codes JSON-RPC 2.0 defines. */
export const JSON_RPC_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
} as const;

/**
 * The one place a `LoadoutError`'s category becomes a JSON-RPC error code. Bad input is invalid
 * params; the rest use the implementation-defined range, with the stable code in `data.code`.
 */
const RPC_CODE_BY_CATEGORY: Record<ErrorCategory, number> = {
  invalid: JSON_RPC_ERRORS.invalidParams,
  not_found: -32004,
  conflict: -32009,
  unauthorized: -32001,
  forbidden: -32003,
  failed: -32000,
};

/** The most calls one batch may hold. */
export const MAX_BATCH = 100;

type Id = string | number | null;
export interface JsonRpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}
export type JsonRpcResponse = { jsonrpc: '2.0'; id: Id; result: unknown } | { jsonrpc: '2.0'; id: Id; error: JsonRpcError };

/** The per-call context, made fresh for each call and closed after it. */
export interface RpcCallScope {
  readonly context: RpcContext;
  close(): void;
}

/**
 * Answers a JSON-RPC 2.0 request body: one call or a batch. Returns null when nothing is to be
 * sent back (only notifications). Never throws: every failure is an error object.
 */
export async function handleJsonRpc(
  body: string,
  methods: ReadonlyMap<string, RpcMethod>,
  scope: () => RpcCallScope,
  log: (error: unknown) => void = () => undefined,
): Promise<JsonRpcResponse | JsonRpcResponse[] | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return failure(null, JSON_RPC_ERRORS.parse, 'Parse error: the body is not valid JSON');
  }
  if (exceedsJsonDepth(parsed)) {
    return failure(null, JSON_RPC_ERRORS.invalidRequest, `Invalid Request: the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return failure(null, JSON_RPC_ERRORS.invalidRequest, 'Invalid Request: an empty batch');
    if (parsed.length > MAX_BATCH) return failure(null, JSON_RPC_ERRORS.invalidRequest, `Invalid Request: a batch holds at most ${MAX_BATCH} calls`);
    const responses: JsonRpcResponse[] = [];
    for (const call of parsed) {
      const response = await handleCall(call, methods, scope, log);
      if (response !== null) responses.push(response);
    }
    return responses.length === 0 ? null : responses;
  }
  return handleCall(parsed, methods, scope, log);
}

async function handleCall(
  call: unknown,
  methods: ReadonlyMap<string, RpcMethod>,
  scope: () => RpcCallScope,
  log: (error: unknown) => void,
): Promise<JsonRpcResponse | null> {
  if (call === null || typeof call !== 'object' || Array.isArray(call)) {
    return failure(null, JSON_RPC_ERRORS.invalidRequest, 'Invalid Request: a call is an object');
  }
  const request = call as Record<string, unknown>;
  const hasId = 'id' in request;
  const id = request.id;
  if (hasId && id !== null && typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) {
    return failure(null, JSON_RPC_ERRORS.invalidRequest, 'Invalid Request: id must be a string, a number or null');
  }
  const replyId = (hasId ? id : null) as Id;
  if (request.jsonrpc !== '2.0' || typeof request.method !== 'string') {
    return failure(replyId, JSON_RPC_ERRORS.invalidRequest, 'Invalid Request: needs "jsonrpc": "2.0" and a "method" string');
  }
  const respond = (response: JsonRpcResponse): JsonRpcResponse | null => (hasId ? response : null);
  const method = methods.get(request.method);
  if (method === undefined) {
    return respond(failure(replyId, JSON_RPC_ERRORS.methodNotFound, `Method not found: ${request.method.slice(0, 100)}`));
  }
  const raw = request.params === undefined ? {} : request.params;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return respond(failure(replyId, JSON_RPC_ERRORS.invalidParams, 'Invalid params: params must be an object of named parameters'));
  }
  const params = method.params.safeParse(raw);
  if (!params.success) {
    return respond(
      failure(replyId, JSON_RPC_ERRORS.invalidParams, `Invalid params: ${formatValidationError(params.error)}`, { code: 'PARAMS_INVALID' }),
    );
  }
  const callScope = scope();
  try {
    const result = await method.handler(params.data, callScope.context);
    return respond({ jsonrpc: '2.0', id: replyId, result: result === undefined ? null : result });
  } catch (error) {
    if (isLoadoutError(error)) {
      return respond(
        failure(replyId, RPC_CODE_BY_CATEGORY[error.category], redactCredentials(error.message), { code: error.code, category: error.category }),
      );
    }
    log(error);
    return respond(failure(replyId, JSON_RPC_ERRORS.internal, 'Internal error'));
  } finally {
    callScope.close();
  }
}

function failure(id: Id, code: number, message: string, data?: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}
