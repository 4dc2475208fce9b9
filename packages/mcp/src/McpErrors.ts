import { redactCredentials } from '@loadout/kernel';
import { ConflictError, InvalidInputError, NotFoundError, isLoadoutError } from '@loadout/files';

/** A resource URI that is not one Loadout serves, or that tries to leave a skill's folder. */
export class ResourceUriInvalidError extends InvalidInputError {
  constructor(uri: string, reason: string) {
    super('RESOURCE_URI_INVALID', `resource ${clip(uri)}: ${reason}`);
  }
}

export class ResourceNotFoundError extends NotFoundError {
  constructor(uri: string, reason: string) {
    super('RESOURCE_NOT_FOUND', `resource ${clip(uri)}: ${reason}`);
  }
}

/** A resource that exists but is not served: a hidden file, a link out of its folder, too large. */
export class ResourceRefusedError extends InvalidInputError {
  constructor(uri: string, reason: string) {
    super('RESOURCE_REFUSED', `resource ${clip(uri)} is refused: ${reason}`);
  }
}

export class ToolNotFoundError extends NotFoundError {
  constructor(name: string) {
    super('TOOL_NOT_FOUND', `no tool named "${clip(name)}" in this session`);
  }
}

/**
 * A tool whose task exists but is off in this session: never run, and the caller is told why. A
 * client that was shown the tool in its last `tools/list` (one that ignores `list_changed`, as
 * Codex does) is told that it changed since.
 */
export class ToolSwitchedOffError extends ConflictError {
  constructor(
    name: string,
    readonly dirName: string,
    readonly decidedBy: string,
    reason: string,
    sinceListed: boolean,
  ) {
    super(
      'CAPABILITY_OFF',
      sinceListed
        ? `tool "${clip(name)}": task "${dirName}" was switched off since your tools/list: ${reason} (decided by ${decidedBy}); list the tools again`
        : `tool "${clip(name)}" runs task "${dirName}", which is off in this session: ${reason} (decided by ${decidedBy})`,
    );
  }
}

/**
 * A tool the client was shown in its last `tools/list` whose task is no longer part of the session
 * at all (its folder removed or renamed, its plugin uninstalled): refused, naming the task.
 */
export class ToolGoneError extends NotFoundError {
  constructor(name: string, dirName: string) {
    super(
      'TOOL_GONE',
      `tool "${clip(name)}": task "${dirName}" was removed from this session since your tools/list (its folder is gone or renamed, or its plugin was uninstalled); list the tools again`,
    );
  }
}

/** A task whose declared input schema cannot be used: calls are refused rather than left unchecked. */
export class ToolInputSchemaError extends ConflictError {
  constructor(name: string, reason: string) {
    super('TASK_INPUT_SCHEMA_INVALID', `tool "${clip(name)}" cannot be called: ${reason}`);
  }
}

export class PromptNotFoundError extends NotFoundError {
  constructor(name: string) {
    super('PROMPT_NOT_FOUND', `no prompt named "${clip(name)}" in this session`);
  }
}

/**
 * A request the client may make only after declaring a capability it did not declare: answered
 * with MCP's "missing required client capability" code, naming what to declare.
 */
export class ClientCapabilityRequiredError extends ConflictError {
  constructor(
    code: string,
    message: string,
    /** What the client must declare, in the shape of its capabilities. */
    readonly requiredCapabilities: Readonly<Record<string, unknown>>,
  ) {
    super(code, message);
  }
}

/** JSON-RPC error codes: MCP's "resource not found" and "missing required client capability", and JSON-RPC's own. */
const RESOURCE_NOT_FOUND = -32002;
export const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

/**
 * The one place a refusal becomes a JSON-RPC error of the MCP protocol: its message (credentials
 * removed), a code by category, and Loadout's own code in `data.code`. Anything that is not a
 * Loadout error says nothing about the inside.
 */
export function jsonRpcErrorFor(error: unknown): { code: number; message: string; data?: { code: string; [key: string]: unknown } } {
  if (!isLoadoutError(error)) return { code: INTERNAL_ERROR, message: 'internal error' };
  if (error instanceof ClientCapabilityRequiredError) {
    return {
      code: MISSING_REQUIRED_CLIENT_CAPABILITY,
      message: redactCredentials(error.message),
      data: { code: error.code, requiredCapabilities: error.requiredCapabilities },
    };
  }
  const code =
    error.category === 'not_found' && error.code.startsWith('RESOURCE_')
      ? RESOURCE_NOT_FOUND
      : error.category === 'failed' || error.category === 'unavailable'
        ? INTERNAL_ERROR
        : INVALID_PARAMS;
  return { code, message: redactCredentials(error.message), data: { code: error.code } };
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * What a request handler throws for the SDK to answer as a JSON-RPC error: the SDK sends `code`,
 * `message` and `data` of any thrown error as they are (its own `McpError` would put a second
 * "MCP error" prefix in front of the message the client shows).
 */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}
