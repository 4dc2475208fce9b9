import { format as schemaFormats } from '@cfworker/json-schema';
import { RE2JS } from 're2js';

/**
 * Regular expressions from task documents, run in linear time. A schema's `pattern` and
 * `patternProperties` come from a plugin or a project, and the JSON Schema validator would run
 * them with JavaScript's backtracking engine on the server's event loop: `^(a+)+$` against 32
 * characters froze `loadout serve` for 24 s. RE2JS (a pure-JavaScript port of RE2, no native
 * build) matches in time linear in the input; a pattern it cannot compile (a backreference, a
 * lookaround) makes the schema unusable, said so, never silently dropped. See
 * docs/decisions/tasks.md.
 *
 * The validator is kept (it reads schemas as data) and never sees a document's pattern:
 * - `pattern: P` becomes a format of our own that tests P with RE2JS (a format is asserted only
 *   on strings, as `pattern` is);
 * - `patternProperties` keys are rewritten per call into literal alternations of the argument's
 *   own property names that P matches, which the native engine runs without backtracking.
 */

/** The format names this module registers: one per distinct pattern. */
const PATTERN_FORMAT = 'loadout-linear-pattern:';

/** Sub-schema places of JSON Schema (drafts 4 to 2020-12): maps, lists and single sub-schemas. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const SCHEMA_SINGLE = [
  'not',
  'if',
  'then',
  'else',
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'propertyNames',
];

const compiled = new Map<string, RE2JS>();

/** A pattern compiled for RE2JS, once per distinct text; throws when RE2 cannot run it. */
function linear(pattern: string): RE2JS {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    try {
      regex = RE2JS.compile(pattern);
    } catch (error) {
      throw new Error(
        `pattern ${JSON.stringify(pattern.slice(0, 80))} cannot run in linear time (${(error as Error).message}); backreferences and lookarounds are not supported`,
      );
    }
    compiled.set(pattern, regex);
    // Entries stay: a check prepared earlier may still name this format, and a missing format is skipped by the validator.
    const matcher = regex;
    (schemaFormats as Record<string, (value: string) => boolean>)[PATTERN_FORMAT + pattern] = (value) => matcher.test(value);
  }
  return regex;
}

/** A schema with its patterns moved out of the native engine's reach, and whether calls must rewrite `patternProperties`. */
export interface LinearSchema {
  readonly schema: Record<string, unknown>;
  readonly patternProperties: boolean;
}

/** Rewrites `schema` (a copy; the record's is left alone). Throws when a pattern cannot run in linear time. */
export function withLinearPatterns(schema: Readonly<Record<string, unknown>>): LinearSchema {
  let patternProperties = false;
  const rewritten = eachSchema(schema, (copy) => {
    const patterns = copy.patternProperties;
    if (isPlainObject(patterns)) {
      for (const pattern of Object.keys(patterns)) linear(pattern);
      patternProperties = true;
    }
    if (typeof copy.pattern === 'string') {
      linear(copy.pattern);
      const check = { format: PATTERN_FORMAT + copy.pattern };
      delete copy.pattern;
      if (copy.format === undefined) Object.assign(copy, check);
      else copy.allOf = [...(Array.isArray(copy.allOf) ? copy.allOf : []), check];
    }
  });
  return { schema: rewritten as Record<string, unknown>, patternProperties };
}

/**
 * `schema` (from {@link withLinearPatterns}) with each `patternProperties` key P replaced by
 * `^(?:k1|k2…)$` over the property names of `args` (at any depth) that P matches: the same
 * properties are chosen, and the native engine only compares literals.
 */
export function forArguments(schema: Record<string, unknown>, args: unknown): Record<string, unknown> {
  const names = new Set<string>();
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (isPlainObject(value)) {
      for (const [name, item] of Object.entries(value)) {
        names.add(name);
        collect(item);
      }
    }
  };
  collect(args);
  let distinct = 0;
  return eachSchema(schema, (copy) => {
    if (!isPlainObject(copy.patternProperties)) return;
    copy.patternProperties = Object.fromEntries(
      Object.entries(copy.patternProperties).map(([pattern, sub]) => {
        const regex = linear(pattern);
        const matching = [...names].filter((name) => regex.test(name)).map(escapeLiteral);
        // An empty group per entry keeps two patterns that choose the same names apart.
        distinct += 1;
        return [`${'(?:)'.repeat(distinct)}${matching.length === 0 ? '(?!)' : `^(?:${matching.join('|')})$`}`, sub];
      }),
    );
  }) as Record<string, unknown>;
}

/**
 * A copy of `node` with every sub-schema copied the same way, `visit` given each copy after its
 * sub-schemas: keywords are told apart from property names (a property called `pattern` is not
 * the keyword), and `enum` / `const` values are never walked.
 */
function eachSchema(node: unknown, visit: (copy: Record<string, unknown>) => void): unknown {
  if (!isPlainObject(node)) return node;
  const copy: Record<string, unknown> = { ...node };
  for (const key of SCHEMA_MAPS) {
    const map = copy[key];
    if (isPlainObject(map)) copy[key] = Object.fromEntries(Object.entries(map).map(([name, value]) => [name, eachSchema(value, visit)]));
  }
  for (const key of SCHEMA_LISTS) if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map((item) => eachSchema(item, visit));
  for (const key of SCHEMA_SINGLE) if (isPlainObject(copy[key])) copy[key] = eachSchema(copy[key], visit);
  visit(copy);
  return copy;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A name as a literal in a Unicode-mode regular expression: only syntax characters may be escaped there. */
function escapeLiteral(name: string): string {
  return name.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** Whether a validator message is about one of this module's formats; its words are then the `pattern` keyword's. */
export function isPatternFormat(message: string): boolean {
  return message.includes(`format "${PATTERN_FORMAT}`);
}
