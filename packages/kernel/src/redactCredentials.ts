/**
 * What Loadout shows instead of a credential. One rule decides what a credential looks like, here;
 * every message, stored URL and served document goes through these functions.
 */
const REDACTED = '[redacted]';

/** Names whose last word alone says "credential" (`--api-key`, `X-Api-Key`, `auth`). */
const CREDENTIAL_WORDS = new Set(['key', 'pass', 'pwd', 'auth', 'sig', 'pat', 'jwt', 'bearer', 'sas']);
/** Endings that say "credential" even run together (`apikey`, `PRIVATE_TOKEN`, `clientSecret`). */
const CREDENTIAL_ENDINGS = [
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'apikey',
  'credential',
  'credentials',
  'signature',
  'authorization',
  'cookie',
];

/**
 * Whether a flag, query parameter, variable or header name names a credential: judged by its last
 * word, so `--api-key`, `?private_token`, `GITHUB_TOKEN` and `Authorization` do, while
 * `--token-file`, `--author` and `?q` do not.
 */
export function isCredentialName(name: string): boolean {
  const words = name
    .replace(/^-+/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[-_.\s]+/)
    .filter((word) => word !== '');
  const last = words.at(-1);
  if (last === undefined) return false;
  if (CREDENTIAL_WORDS.has(last)) return true;
  const joined = words.join('');
  return CREDENTIAL_ENDINGS.some((ending) => joined.endsWith(ending));
}

/** A URL in running text: scheme, `://`, then everything up to a space or a quote. */
const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*):\/\/[^\s"'<>`]*/gi;
/** One `name=value` of a URL's query or fragment. */
const URL_PARAMETER = /([?&#;])([^=&#?;\s]+)=([^&#;\s]*)/g;

/**
 * Removes credentials that are part of a URL anywhere in `text`: everything before the last `@`
 * of a URL's authority, the value of every query or fragment parameter whose name names a
 * credential (`?private_token=…`, `#access_token=…`), and secrets carried in the path
 * ({@link redactUrlPath}). The one exception is a plain ssh user without a password
 * (`ssh://git@host/…`), which names an account, not a secret.
 */
export function redactCredentials(text: string): string {
  return text.replace(URL_IN_TEXT, (url) =>
    redactUrlPath(
      url.replace(/^([a-z][a-z0-9+.-]*):\/\/([^/\s?#]*)@/i, (_match, scheme: string, userinfo: string) => {
        const isSsh = /^(ssh|git\+ssh|ssh\+git)$/i.test(scheme);
        if (isSsh && /^[a-z0-9._-]+$/i.test(userinfo)) return `${scheme}://${userinfo}@`;
        return `${scheme}://`;
      }),
    ).replace(URL_PARAMETER, (match, separator: string, name: string) =>
      isCredentialName(safeDecode(name)) ? `${separator}${name}=${REDACTED}` : match,
    ),
  );
}

/** A URL split into what comes before its path, its path, and its query and fragment. */
const URL_PARTS = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)([^?#]*)(.*)$/is;
/** A host or path segment that says the URL is a webhook: `hooks.slack.com`, `/api/webhooks/…`. */
const WEBHOOK_HOST = /^hooks?\./i;
const WEBHOOK_SEGMENT = /^(web)?hooks?$/i;

/**
 * A URL whose path is its credential, as webhooks are (`https://hooks.slack.com/services/T…/B…/<secret>`,
 * `https://discord.com/api/webhooks/<id>/<secret>`): the last segment of a webhook's path, and any
 * path segment shaped like a generated key (20 characters or more mixing upper and lower case
 * letters and digits), are replaced. Words, slugs and version numbers stay readable.
 */
function redactUrlPath(url: string): string {
  const parts = URL_PARTS.exec(url);
  if (parts === null) return url;
  const [, authority = '', pathPart = '', rest = ''] = parts;
  if (pathPart === '' || pathPart === '/') return url;
  const segments = pathPart.split('/');
  const host = authority.replace(/^[^:]*:\/\//, '');
  const webhook = WEBHOOK_HOST.test(host) || segments.some((segment) => WEBHOOK_SEGMENT.test(segment));
  const last = segments.findLastIndex((segment) => segment !== '');
  const shown = segments.map((segment, index) =>
    (webhook && index === last && segment.length >= 6) || isKeyShaped(segment) ? REDACTED : segment,
  );
  return `${authority}${shown.join('/')}${rest}`;
}

/** Whether a path segment looks generated: long, and mixing upper case, lower case and digits. */
function isKeyShaped(segment: string): boolean {
  return (
    segment.length >= 20 && /^[A-Za-z0-9_-]+$/.test(segment) && /[A-Z]/.test(segment) && /[a-z]/.test(segment) && /[0-9]/.test(segment)
  );
}

/**
 * Values shaped like credentials whatever their name: provider tokens with well-known prefixes,
 * cloud access keys, JWTs, `secret=…` pairs, long hex runs, and long mixed-case alphanumeric runs
 * that only keys have (a skill name is lower-case, so it never matches).
 */
const CREDENTIAL_SHAPES: readonly RegExp[] = [
  // Provider tokens are mixed-case; requiring an upper-case letter keeps a skill slug like `sk-tools` readable.
  /\b(?:gh[pousr]_|github_pat_|glpat-|sk-(?:ant-|proj-)?|pk_live_|sk_live_|rk_live_|AIza|ya29\.|npm_)(?=[A-Za-z0-9_\-.]*[A-Z])[A-Za-z0-9_\-.]{12,}/g,
  /\bxox[abprs]-\d+-[A-Za-z0-9-]{8,}/g,
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /\b(bearer|token|secret|password|passwd|api[_-]?key|access[_-]?key)(\s*[:=]\s*|\s+)([^\s,;'"&[\]]{6,})/gi,
  /\b[A-Fa-f0-9]{40,}\b/g,
  /\b(?=[A-Za-z0-9+_-]*[0-9])(?=[A-Za-z0-9+_-]*[A-Z])(?=[A-Za-z0-9+_-]*[a-z])[A-Za-z0-9+_-]{32,}={0,2}/g,
];

/**
 * Removes credential-shaped values from text meant for people: URL credentials
 * ({@link redactCredentials}), then anything shaped like a token or key.
 */
export function redactSecrets(text: string): string {
  let result = redactCredentials(text);
  for (const shape of CREDENTIAL_SHAPES) {
    result = result.replace(shape, (_match, ...groups: unknown[]) => {
      if (typeof groups[0] === 'string' && typeof groups[1] === 'string' && typeof groups[2] === 'string') {
        return `${groups[0]}${groups[1]}${REDACTED}`;
      }
      return REDACTED;
    });
  }
  return result;
}

const FLAG = /^-{1,2}[A-Za-z][\w.-]*$/;
const FLAG_WITH_VALUE = /^(-{1,2}[A-Za-z][\w.-]*)=/;
const VARIABLE = /^([A-Za-z_][A-Za-z0-9_]*)=/;
const HEADER = /^([A-Za-z][A-Za-z0-9-]*)\s*:\s*\S/;

/**
 * A command line as it may be shown (an MCP server's `args`): the value of every credential-named
 * flag (`--token=…`, `--api-key …`), variable (`GITHUB_TOKEN=…`) and header
 * (`Authorization: …`) replaced, and {@link redactSecrets} applied to every argument. Arguments
 * that name no credential are kept as written.
 */
export function redactArguments(args: readonly string[]): string[] {
  const shown: string[] = [];
  let hideNext = false;
  for (const arg of args) {
    if (hideNext && !arg.startsWith('-') && !(shown.at(-1) === '-p' && PORT_LIKE.test(arg))) {
      hideNext = false;
      shown.push(REDACTED);
      continue;
    }
    hideNext = FLAG.test(arg) && (isCredentialName(arg) || arg === '-p');
    shown.push(redactSecrets(redactShortPassword(redactNamedValue(arg))));
  }
  return shown;
}

/**
 * `-p` is the password flag of database clients (`mysql -p secret`, `-psecret`) and the port flag
 * of many servers (`-p 8080`, `docker -p 127.0.0.1:80:80`): its value is hidden unless it is a port
 * or an address mapping.
 */
const PORT_LIKE = /^[0-9.:[\]]+(\/(tcp|udp))?$/;

/**
 * `-pS3cret` (a password run onto its flag) with the value replaced. A port (`-p8080`), a cluster
 * of short flags (`-pv`) and a word flag (`-print`, `-password`) are lower-case letters only, or
 * digits and colons, and are kept: a password of lower-case letters alone run onto `-p` is shown.
 */
function redactShortPassword(arg: string): string {
  if (!arg.startsWith('-p') || arg.length <= 2 || PORT_LIKE.test(arg.slice(2)) || /^-p[a-z-]+$/.test(arg)) return arg;
  return `-p${REDACTED}`;
}

/** `--token=x`, `TOKEN=x` and `Authorization: x` with the value replaced; anything else as is. */
function redactNamedValue(arg: string): string {
  const flag = FLAG_WITH_VALUE.exec(arg) ?? VARIABLE.exec(arg);
  if (flag !== null) return isCredentialName(flag[1] as string) ? `${flag[1]}=${REDACTED}` : arg;
  const header = HEADER.exec(arg);
  if (header !== null && isCredentialName(header[1] as string)) return `${header[1]}: ${REDACTED}`;
  return arg;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
