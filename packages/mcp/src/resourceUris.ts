import { AGENT_URI_PREFIX, BLOCK_RESOURCES, SERVER_URI_PREFIX, SKILL_URI_PREFIX } from './SessionExposure.js';
import { ResourceUriInvalidError } from './McpErrors.js';

/** What a resource URI names, once checked. */
export type ResourceAddress =
  | { readonly kind: 'block'; readonly section: string }
  | { readonly kind: 'server'; readonly id: string }
  | { readonly kind: 'agent'; readonly id: string }
  | { readonly kind: 'skill'; readonly id: string; readonly segments: readonly string[] };

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Checks a resource URI at the boundary and says what it names. A skill file's path is taken
 * segment by segment: each is percent-decoded once, and a segment that is empty, `.` or `..`, or
 * that holds a separator (`/`, `\`) or NUL before or after decoding is refused, so no URI can name
 * anything but a path below the skill's folder. Queries and fragments are refused too.
 */
export function parseResourceUri(uri: string): ResourceAddress {
  if (uri.length > 4096) throw new ResourceUriInvalidError(uri, 'the URI is too long');
  if (/[?#\\]/.test(uri) || hasControlCharacter(uri))
    throw new ResourceUriInvalidError(uri, 'the URI holds a query, a fragment, a backslash or a control character');
  const block = BLOCK_RESOURCES.find((candidate) => candidate.uri === uri);
  if (block !== undefined) return { kind: 'block', section: block.section };
  if (uri.startsWith(SERVER_URI_PREFIX)) {
    const id = uri.slice(SERVER_URI_PREFIX.length);
    if (!ID.test(id)) throw new ResourceUriInvalidError(uri, 'a server URI is loadout://servers/<id>');
    return { kind: 'server', id };
  }
  if (uri.startsWith(AGENT_URI_PREFIX)) {
    const id = uri.slice(AGENT_URI_PREFIX.length);
    if (!ID.test(id)) throw new ResourceUriInvalidError(uri, 'an agent URI is loadout://agents/<id>');
    return { kind: 'agent', id };
  }
  if (uri.startsWith(SKILL_URI_PREFIX)) {
    const [id = '', ...raw] = uri.slice(SKILL_URI_PREFIX.length).split('/');
    if (!ID.test(id)) throw new ResourceUriInvalidError(uri, 'a skill URI is skill://<id> or skill://<id>/<path>');
    return { kind: 'skill', id, segments: raw.map((segment) => decodeSegment(segment, uri)) };
  }
  throw new ResourceUriInvalidError(
    uri,
    'Loadout serves skill://, loadout://session/, loadout://servers/ and loadout://agents/ resources only',
  );
}

/** One path segment of a resource URI, percent-decoded once and refused when it could leave its folder. */
export function decodeSegment(raw: string, uri: string): string {
  if (/%(2f|5c|00)/i.test(raw)) throw new ResourceUriInvalidError(uri, 'an encoded separator or NUL in a path is refused');
  let segment: string;
  try {
    segment = decodeURIComponent(raw);
  } catch {
    throw new ResourceUriInvalidError(uri, 'a path segment is not valid percent-encoding');
  }
  if (segment === '' || segment === '.' || segment === '..')
    throw new ResourceUriInvalidError(uri, 'empty, "." and ".." path segments are refused');
  if (/[/\\]/.test(segment) || hasControlCharacter(segment))
    throw new ResourceUriInvalidError(uri, 'a separator or NUL in a path segment is refused');
  return segment;
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) < 0x20 || text.charCodeAt(i) === 0x7f) return true;
  return false;
}
