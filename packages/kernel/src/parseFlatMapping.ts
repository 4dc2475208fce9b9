import yaml from 'js-yaml';

/**
 * The types js-yaml tries on a plain scalar under the core schema (null, bool, int, float), in its
 * order: the very list its loader uses (`compiledImplicit`, which its typings leave out). Should a
 * later version keep them elsewhere, the fast reader steps aside and js-yaml reads everything.
 */
const IMPLICIT_TYPES: readonly yaml.Type[] | null = (() => {
  const types = (yaml.CORE_SCHEMA as { readonly compiledImplicit?: unknown }).compiledImplicit;
  return Array.isArray(types) && types.every((type) => type instanceof yaml.Type) ? (types as yaml.Type[]) : null;
})();

const SPACE = 0x20;
const COLON = 0x3a;
const HASH = 0x23;
const SINGLE_QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CARRIAGE_RETURN = 0x0d;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** A character a plain value may not take as it is: not printable ASCII, or `:` or `#`. */
const NEEDS_A_LOOK = /[^\x20-\x7e]|[:#]/g;
const hasOwn = Object.prototype.hasOwnProperty;
/**
 * The longest bare word the core schema types: `false` (null, bool). Its int and float forms
 * start with a digit, a sign or a dot, which a key here never does.
 */
const LONGEST_TYPED_WORD = 5;

/**
 * Reads YAML text in the shape nearly every frontmatter has — a mapping of `key: value` lines,
 * each value a one-line plain, single-quoted or escape-free double-quoted scalar, a one-line flow
 * list of plain words (`[a, b]`), or nothing; a key with nothing after it may hold one level of
 * such lines, all indented alike (`metadata:` then `  version: 1.0`) — and gives exactly what
 * `yaml.load(text, { schema: yaml.CORE_SCHEMA })` gives for it: the same keys in the same order,
 * each plain scalar typed by js-yaml's own core-schema types (null, bool, int, float, else the
 * string). Anything else returns null, and the caller hands the text to js-yaml: a deeper or
 * uneven indentation, a comment, a block sequence, a flow mapping, a flow list with anything but
 * plain words (quotes, nesting, an empty item, `:` or `#`, a character outside printable ASCII),
 * a block scalar, an anchor, alias or tag, a key that is not a bare word or that the schema would
 * type (`true`, `null` …), `__proto__`, a duplicate key, a value that starts with an indicator or
 * holds `: ` or ` #`, a quoted scalar that spans lines, has escapes or is followed by text, a tab
 * or any other character {@link characterWidth} leaves out, and a text with no entry at all.
 *
 * Why it exists: js-yaml's general parser was a sixth of a cold session open over 10,000
 * skills. `parseFlatMapping.test.ts` keeps it honest: a property test compares it with js-yaml
 * over generated text rich in the hard cases, and every text it accepts must parse in js-yaml
 * without error to an equal value.
 */
export function parseFlatMapping(text: string): Record<string, unknown> | null {
  if (IMPLICIT_TYPES === null) return null;
  const result: Record<string, unknown> = {};
  let entries = 0;
  const length = text.length;
  let start = 0;
  /** The last top-level key, when nothing followed its colon: the one an indented line belongs to. */
  let open: string | null = null;
  /** The mapping under `open`, once its first indented line was read, and that line's indentation. */
  let nested: Record<string, unknown> | null = null;
  let indentation = 0;
  while (start < length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = length;
    const stop = end > start && text.charCodeAt(end - 1) === CARRIAGE_RETURN ? end - 1 : end;
    const next = end + 1;
    let at = start;
    while (at < stop && text.charCodeAt(at) === SPACE) at += 1;
    if (at === stop) {
      start = next;
      continue; // a blank line
    }
    let into = result;
    if (at !== start) {
      if (nested === null && open !== null) {
        nested = {};
        indentation = at - start;
        result[open] = nested;
      }
      if (nested === null || at - start !== indentation) return null;
      into = nested;
    } else {
      open = null;
      nested = null;
    }
    const keyStart = at;
    if (!isKeyStart(text.charCodeAt(at))) return null;
    at += 1;
    while (at < stop && isKeyPart(text.charCodeAt(at))) at += 1;
    if (at === stop || text.charCodeAt(at) !== COLON) return null;
    const key = text.slice(keyStart, at);
    at += 1;
    if (at < stop && text.charCodeAt(at) !== SPACE) return null;
    if (key === '__proto__' || (key.length <= LONGEST_TYPED_WORD && typedByCoreSchema(key)) || hasOwn.call(into, key)) return null;
    while (at < stop && text.charCodeAt(at) === SPACE) at += 1;
    let value: unknown = null;
    if (at < stop) {
      value = scalarAt(text, at, stop);
      if (value === undefined) return null;
    } else if (into === result) {
      open = key;
    }
    into[key] = value;
    if (into === result) entries += 1;
    start = next;
  }
  return entries === 0 ? null : result;
}

/** The one-line value in `text` from `from` (not a space) to `stop`; undefined when it is not in the simple shape. */
function scalarAt(text: string, from: number, stop: number): unknown {
  const first = text.charCodeAt(from);
  if (first === SINGLE_QUOTE) return singleQuoted(text, from, stop);
  if (first === DOUBLE_QUOTE) return doubleQuoted(text, from, stop);
  if (first === OPEN_BRACKET) return flowList(text, from, stop);
  if (isIndicator(first)) return undefined;
  let last = stop - 1;
  while (text.charCodeAt(last) === SPACE) last -= 1;
  // Most values are printable ASCII without `:` or `#`: one native search says so; from the
  // first character that needs a look, each is looked at.
  NEEDS_A_LOOK.lastIndex = from;
  if (NEEDS_A_LOOK.test(text)) {
    for (let at = NEEDS_A_LOOK.lastIndex - 1; at <= last; at += 1) {
      const code = text.charCodeAt(at);
      if (code === COLON) {
        if (at === last || text.charCodeAt(at + 1) === SPACE) return undefined; // a mapping inside
      } else if (code === HASH) {
        if (text.charCodeAt(at - 1) === SPACE) return undefined; // a comment
      } else if (code < 0x20 || code > 0x7e) {
        const width = characterWidth(text, at, code);
        if (width === 0) return undefined;
        at += width - 1;
      }
    }
  }
  const plain = text.slice(from, last + 1);
  return mayBeTyped(first) ? typedPlainScalar(plain) : plain;
}

/**
 * `[a, b]` on one line, each item a plain word of printable ASCII that does not start with an
 * indicator and holds no `,`, `[`, `]`, `{`, `}`, `:`, `#` or quote, typed as a plain scalar is;
 * `[]`; followed by spaces only. Undefined for anything else (an empty item, a trailing comma).
 */
function flowList(text: string, from: number, stop: number): unknown[] | undefined {
  const items: unknown[] = [];
  let at = from + 1;
  while (at < stop && text.charCodeAt(at) === SPACE) at += 1;
  if (at < stop && text.charCodeAt(at) === CLOSE_BRACKET) return onlySpaces(text, at + 1, stop) ? items : undefined;
  for (;;) {
    while (at < stop && text.charCodeAt(at) === SPACE) at += 1;
    const itemStart = at;
    if (at === stop || isIndicator(text.charCodeAt(at)) || !isFlowWordPart(text.charCodeAt(at))) return undefined;
    while (at < stop && isFlowWordPart(text.charCodeAt(at))) at += 1;
    let itemEnd = at;
    while (text.charCodeAt(itemEnd - 1) === SPACE) itemEnd -= 1;
    const item = text.slice(itemStart, itemEnd);
    items.push(mayBeTyped(text.charCodeAt(itemStart)) ? typedPlainScalar(item) : item);
    if (at === stop) return undefined; // not closed on this line
    const code = text.charCodeAt(at);
    at += 1;
    if (code === CLOSE_BRACKET) return onlySpaces(text, at, stop) ? items : undefined;
    if (code !== COMMA) return undefined;
  }
}

/** Printable ASCII but the flow indicators, `:`, `#` and quotes; a space too (inside an item, or around it). */
function isFlowWordPart(code: number): boolean {
  if (code < 0x20 || code > 0x7e) return false;
  switch (code) {
    case COMMA:
    case OPEN_BRACKET:
    case CLOSE_BRACKET:
    case 0x7b: // {
    case 0x7d: // }
    case COLON:
    case HASH:
    case SINGLE_QUOTE:
    case DOUBLE_QUOTE:
      return false;
    default:
      return true;
  }
}

/** `'…'` on one line, `''` standing for one quote, followed by spaces only. */
function singleQuoted(text: string, from: number, stop: number): string | undefined {
  let value = '';
  let chunk = from + 1;
  for (let at = chunk; at < stop; ) {
    const code = text.charCodeAt(at);
    if (code === SINGLE_QUOTE) {
      if (at + 1 < stop && text.charCodeAt(at + 1) === SINGLE_QUOTE) {
        value += text.slice(chunk, at + 1);
        at += 2;
        chunk = at;
        continue;
      }
      return onlySpaces(text, at + 1, stop) ? value + text.slice(chunk, at) : undefined;
    }
    const width = characterWidth(text, at, code);
    if (width === 0) return undefined;
    at += width;
  }
  return undefined; // not closed on this line
}

/** `"…"` on one line with no escape, followed by spaces only. */
function doubleQuoted(text: string, from: number, stop: number): string | undefined {
  for (let at = from + 1; at < stop; ) {
    const code = text.charCodeAt(at);
    if (code === DOUBLE_QUOTE) return onlySpaces(text, at + 1, stop) ? text.slice(from + 1, at) : undefined;
    if (code === BACKSLASH) return undefined;
    const width = characterWidth(text, at, code);
    if (width === 0) return undefined;
    at += width;
  }
  return undefined; // not closed on this line
}

/**
 * How many UTF-16 units the character at `at` takes when this reader takes it as it is: 1, or 2
 * for a surrogate pair. 0 for what it leaves to js-yaml: controls and tabs, the C1 range (NEL
 * among them), Unicode's line and paragraph separators, the byte-order mark, the two
 * non-characters, and a surrogate without its pair.
 */
function characterWidth(text: string, at: number, code: number): number {
  if (code >= 0x20 && code <= 0x7e) return 1;
  if (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0xfeff ||
    code === 0xfffe ||
    code === 0xffff
  )
    return 0;
  if (code >= 0xd800 && code <= 0xdbff) {
    const low = text.charCodeAt(at + 1);
    return low >= 0xdc00 && low <= 0xdfff ? 2 : 0;
  }
  return code >= 0xdc00 && code <= 0xdfff ? 0 : 1;
}

function onlySpaces(text: string, from: number, stop: number): boolean {
  for (let at = from; at < stop; at += 1) if (text.charCodeAt(at) !== SPACE) return false;
  return true;
}

/**
 * Whether a plain scalar starting with `code` may be typed by the core schema: its null, bool,
 * int and float forms all start with a digit, `+`, `.`, `~` or the first letter of `null`,
 * `true` or `false` in some case (`-` too, which a value here never starts with). Any other
 * scalar is its text, and js-yaml's types are not asked.
 */
function mayBeTyped(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2b ||
    code === 0x2e ||
    code === 0x7e ||
    code === 0x6e ||
    code === 0x4e ||
    code === 0x74 ||
    code === 0x54 ||
    code === 0x66 ||
    code === 0x46
  );
}

/** A plain scalar as the core schema types it: null, a boolean, a number, else the text itself. */
function typedPlainScalar(plain: string): unknown {
  for (const type of IMPLICIT_TYPES as readonly yaml.Type[]) if (type.resolve(plain)) return type.construct(plain) as unknown;
  return plain;
}

/** Whether the core schema would make this plain scalar something other than a string. */
function typedByCoreSchema(plain: string): boolean {
  for (const type of IMPLICIT_TYPES as readonly yaml.Type[]) if (type.resolve(plain)) return true;
  return false;
}

/** A key starts with an ASCII letter or `_`. */
function isKeyStart(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f;
}

/** Then ASCII letters, digits, `_` and `-`. */
function isKeyPart(code: number): boolean {
  return isKeyStart(code) || (code >= 0x30 && code <= 0x39) || code === 0x2d;
}

/** A character that gives a value's first position a meaning of its own (YAML's indicators). */
function isIndicator(code: number): boolean {
  switch (code) {
    case 0x2d: // -
    case 0x3f: // ?
    case 0x3a: // :
    case 0x2c: // ,
    case 0x5b: // [
    case 0x5d: // ]
    case 0x7b: // {
    case 0x7d: // }
    case 0x23: // #
    case 0x26: // &
    case 0x2a: // *
    case 0x21: // !
    case 0x7c: // |
    case 0x3e: // >
    case 0x25: // %
    case 0x40: // @
    case 0x60: // `
      return true;
    default:
      return false;
  }
}
