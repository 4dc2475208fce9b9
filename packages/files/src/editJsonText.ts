import { isDeepStrictEqual } from 'node:util';
import { applyEdits, type FormattingOptions, type JSONPath, modify } from 'jsonc-parser';

/** One change to a JSON text: the value at `path` set (made with its parents when missing), or removed (`undefined`). */
export interface JsonTextEdit {
  readonly path: readonly (string | number)[];
  readonly value: unknown;
}

/**
 * The one way Loadout edits a JSON document a person keeps (`config.json`, a server definition):
 * jsonc-parser's `modify` replaces, inserts or removes exactly the text of each edited value, in
 * the file's own indentation and line ending, so every other byte (key order, spacing, the other
 * entries) stays. A missing or blank text starts as `{}`.
 *
 * The result is parsed back and compared with the parsed original changed by the same edits; any
 * other outcome (duplicate keys, comments a plain parse refuses) is null, and the caller refuses
 * with its own coded error rather than write a file it would read differently.
 *
 * @returns the edited text, ending with a line break when it is a new file; null when the edit is unsafe
 * @throws SyntaxError when `text` is not JSON
 */
export function editJsonText(text: string | null, edits: readonly JsonTextEdit[]): string | null {
  const fresh = text === null || text.trim() === '';
  const original = fresh ? '{}' : text;
  const expected = JSON.parse(original) as unknown;
  const options = formattingOptionsOf(original);
  let edited = original;
  for (const edit of edits) {
    edited = applyEdits(edited, modify(edited, edit.path as JSONPath, edit.value, { formattingOptions: options }));
    applyToValue(expected, edit);
  }
  let actual: unknown;
  try {
    actual = JSON.parse(edited);
  } catch {
    return null;
  }
  if (!isDeepStrictEqual(actual, expected)) return null;
  return fresh ? `${edited}${options.eol}` : edited;
}

/** The same edit on parsed data: what the text must parse to afterwards. */
function applyToValue(root: unknown, edit: JsonTextEdit): void {
  let holder = root as Record<string | number, unknown>;
  const keys = edit.path;
  for (const key of keys.slice(0, -1)) {
    const next = holder[key];
    if (next === null || typeof next !== 'object') {
      if (edit.value === undefined) return;
      holder[key] = {};
    }
    holder = holder[key] as Record<string | number, unknown>;
  }
  const last = keys[keys.length - 1] as string | number;
  if (edit.value === undefined) delete holder[last];
  else holder[last] = JSON.parse(JSON.stringify(edit.value)) as unknown;
}

/** The text's own indentation (two spaces when it shows none) and line ending. */
function formattingOptionsOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)["}\]]/.exec(text)?.[1] ?? '  ';
  const tabs = indent.startsWith('\t');
  return { insertSpaces: !tabs, tabSize: tabs ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}
