import {
  AnswerBudget,
  answerBytes,
  exceedsJsonDepth,
  formatValidationError,
  MAX_ANSWER_BYTES,
  MAX_BATCH_CALLS,
  MAX_JSON_DEPTH,
  redactCredentials,
  responseTooLarge,
} from '@loadout/kernel';
import { type ErrorCategory, isLoadoutError } from '@loadout/files';
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
  unavailable: -32005,
};

type Id = string | number | null;
export interface JsonRpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}
export type JsonRpcResponse = { jsonrpc: '2.0'; id: Id; result: unknown } | { jsonrpc: '2.0'; id: Id; error: JsonRpcError };

/** A method with its dependencies, resolved when the server was built. */
export interface WiredRpcMethod {
  readonly method: RpcMethod;
  readonly deps: Readonly<Record<string, unknown>>;
}

/** The per-call context, made fresh for each call and closed after it. */
export interface RpcCallScope {
  readonly context: RpcContext;
  close(): void;
}

/**
 * Answers a JSON-RPC 2.0 request body: one call or a batch. Returns the answer as JSON text, or
 * null when nothing is to be sent back (only notifications). Never throws: every failure is an
 * error object. A batch's calls run one at a time with a turn of the event loop between them, so
 * other requests are served meanwhile, and each answer is serialised as soon as it is made, so the
 * batch holds text within the kernel's one answer budget ({@link MAX_ANSWER_BYTES}), not every
 * result at once; a single call's answer past it is refused too (`RESPONSE_TOO_LARGE`).
 */
export async function handleJsonRpc(
  body: string,
  methods: ReadonlyMap<string, WiredRpcMethod>,
  scope: () => RpcCallScope,
  log: (error: unknown) => void = () => undefined,
): Promise<string | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return JSON.stringify(failure(null, JSON_RPC_ERRORS.parse, 'Parse error: the body is not valid JSON'));
  }
  if (exceedsJsonDepth(parsed)) {
    return JSON.stringify(
      failure(
        null,
        JSON_RPC_ERRORS.invalidRequest,
        `Invalid Request: the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
      ),
    );
  }
  if (!Array.isArray(parsed)) {
    const response = await handleCall(parsed, methods, scope, log);
    if (response === null) return null;
    const text = JSON.stringify(response);
    return answerBytes(text) > MAX_ANSWER_BYTES ? JSON.stringify(tooLarge(parsed, 'answer')) : text;
  }
  if (parsed.length === 0) return JSON.stringify(failure(null, JSON_RPC_ERRORS.invalidRequest, 'Invalid Request: an empty batch'));
  if (parsed.length > MAX_BATCH_CALLS)
    return JSON.stringify(failure(null, JSON_RPC_ERRORS.invalidRequest, `Invalid Request: a batch holds at most ${MAX_BATCH_CALLS} calls`));
  const answers: string[] = [];
  // The brackets and commas of the batch's array count as well.
  const budget = new AnswerBudget();
  budget.admit(2);
  for (const call of parsed) {
    if (answers.length > 0) await nextTurn();
    let response: JsonRpcResponse | null;
    if (budget.full && expectsAnswer(call)) response = tooLarge(call, 'batch');
    else response = await handleCall(call, methods, scope, log);
    if (response === null) continue;
    let text = JSON.stringify(response);
    if (!budget.admit(answerBytes(text) + 1)) text = JSON.stringify(tooLarge(call, 'batch'));
    answers.push(text);
  }
  return answers.length === 0 ? null : `[${answers.join(',')}]`;
}

/** Whether a batch entry is a call that gets an answer (has an id), as opposed to a notification. */
function expectsAnswer(call: unknown): boolean {
  return call !== null && typeof call === 'object' && !Array.isArray(call) && 'id' in call;
}

/** The answer for a call whose answer the budget left no room for. */
function tooLarge(call: unknown, what: 'answer' | 'batch'): JsonRpcResponse {
  const id = (call as { id?: unknown } | null)?.id;
  const replyId: Id = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
  const error = responseTooLarge(what);
  return failure(replyId, RPC_CODE_BY_CATEGORY[error.category], error.message, { code: error.code, category: error.category });
}

/** Lets the event loop serve other requests before the next call of a batch runs. */
function nextTurn(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}

async function handleCall(
  call: unknown,
  methods: ReadonlyMap<string, WiredRpcMethod>,
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
  const wired = methods.get(request.method);
  if (wired === undefined) {
    return respond(failure(replyId, JSON_RPC_ERRORS.methodNotFound, `Method not found: ${request.method.slice(0, 100)}`));
  }
  const raw = request.params === undefined ? {} : request.params;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return respond(failure(replyId, JSON_RPC_ERRORS.invalidParams, 'Invalid params: params must be an object of named parameters'));
  }
  const { method, deps } = wired;
  const params = method.params.safeParse(raw);
  if (!params.success) {
    return respond(
      failure(replyId, JSON_RPC_ERRORS.invalidParams, `Invalid params: ${formatValidationError(params.error)}`, { code: 'PARAMS_INVALID' }),
    );
  }
  const callScope = scope();
  try {
    const result = await method.handler(params.data, deps, callScope.context);
    return respond({ jsonrpc: '2.0', id: replyId, result: result === undefined ? null : result });
  } catch (error) {
    if (isLoadoutError(error)) {
      return respond(
        failure(replyId, RPC_CODE_BY_CATEGORY[error.category], redactCredentials(error.message), {
          code: error.code,
          category: error.category,
        }),
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
