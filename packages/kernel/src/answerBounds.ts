import { OperationFailedError } from '@loadout/files';

/**
 * The most one answer may weigh (UTF-8 bytes of its JSON), on every face: an HTTP route's answer,
 * one JSON-RPC batch on `/rpc`, one POST on `/mcp`. Far above any listing a person asks for (a
 * session of thousands of skills is a few MiB), and low enough that a handful of hostile requests
 * at once cannot take the server's memory.
 */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * The most calls one JSON-RPC batch may hold, on `/rpc` and `/mcp` alike: a batch's calls share
 * one request and one answer; a client with more to ask sends more batches.
 */
export const MAX_BATCH_CALLS = 20;

/** An answer, or a call of a batch, that would pass {@link MAX_ANSWER_BYTES}. */
export class ResponseTooLargeError extends OperationFailedError {
  constructor(message: string) {
    super('RESPONSE_TOO_LARGE', message);
  }
}

/** What a client is told when an answer is refused for its size. */
export function responseTooLarge(what: 'answer' | 'batch'): ResponseTooLargeError {
  const limit = `${MAX_ANSWER_BYTES / (1024 * 1024)} MiB`;
  return new ResponseTooLargeError(
    what === 'answer'
      ? `the answer would pass ${limit}; ask for less (a project, some kinds, a page)`
      : `the answer to this batch would pass ${limit}: this call was not run; send it again on its own`,
  );
}

/** The UTF-8 size of JSON text (or of its bytes). */
export function answerBytes(text: string | Uint8Array): number {
  return typeof text === 'string' ? Buffer.byteLength(text) : text.byteLength;
}

/**
 * Serialises one answer as JSON text, refusing it (before it leaves) when it passes
 * {@link MAX_ANSWER_BYTES}.
 *
 * @throws ResponseTooLargeError
 */
export function boundedJson(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  if (answerBytes(text) > MAX_ANSWER_BYTES) throw responseTooLarge('answer');
  return text;
}

/**
 * The share of {@link MAX_ANSWER_BYTES} the answers of one batch have used. The answers join in the
 * order they are made; one that would pass the budget is refused, and so is every call after it
 * (not run at all), so a batch never holds more than the budget, whatever it asks for.
 */
export class AnswerBudget {
  private used = 0;
  private spent = false;

  /** Whether the budget is spent: a call not yet run should not run. */
  get full(): boolean {
    return this.spent;
  }

  /** Takes `bytes` for one answer; false (and the budget spent) when they do not fit. */
  admit(bytes: number): boolean {
    if (this.spent || this.used + bytes > MAX_ANSWER_BYTES) {
      this.spent = true;
      return false;
    }
    this.used += bytes;
    return true;
  }
}
