import { redactCredentials } from '@loadout/kernel';
import { type ErrorCategory, isLoadoutError } from '@loadout/files';

/** The one place an error category becomes an HTTP status. */
export const HTTP_STATUS_BY_CATEGORY: Record<ErrorCategory, number> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  unauthorized: 401,
  forbidden: 403,
  failed: 500,
  unavailable: 503,
};

/** Fastify's own refusals of a request, by its error code, as Loadout codes. */
const FRAMEWORK_CODES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'MEDIA_TYPE_UNSUPPORTED',
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BODY_INVALID',
  FST_ERR_CTP_INVALID_JSON_BODY: 'BODY_INVALID',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BODY_INVALID',
};

export interface HttpErrorReply {
  readonly status: number;
  readonly body: { readonly error: { readonly code: string; readonly message: string } };
  /** Whether this is a fault of the server, worth logging. */
  readonly internal: boolean;
}

/**
 * What the API answers for a thrown error: a Loadout error by its category; a refusal by the HTTP
 * framework (malformed JSON, wrong media type, too large) with its 4xx status; anything else is a
 * 500 that says nothing about the inside.
 */
export function httpErrorFor(error: unknown): HttpErrorReply {
  if (isLoadoutError(error)) {
    return {
      status: HTTP_STATUS_BY_CATEGORY[error.category],
      body: { error: { code: error.code, message: redactCredentials(error.message) } },
      internal: error.category === 'failed',
    };
  }
  const framework = error as { statusCode?: unknown; code?: unknown; message?: unknown };
  if (typeof framework.statusCode === 'number' && framework.statusCode >= 400 && framework.statusCode < 500) {
    const code = typeof framework.code === 'string' ? (FRAMEWORK_CODES[framework.code] ?? 'REQUEST_INVALID') : 'BODY_INVALID';
    const message = typeof framework.message === 'string' ? framework.message : 'bad request';
    return { status: framework.statusCode, body: { error: { code, message: redactCredentials(message) } }, internal: false };
  }
  return { status: 500, body: { error: { code: 'INTERNAL', message: 'internal error; the server log has the details' } }, internal: true };
}
