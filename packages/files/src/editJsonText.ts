import { isDeepStrictEqual } from 'node:util';
import { applyEdits, type Edit, type FormattingOptions, findNodeAtLocation, type JSONPath, modify, parseTree } from 'jsonc-parser';

/** One change to a JSON text: the value at `path` set (made with its parents when missing), or removed (`undefined`). */
export interface JsonTextEdit {
  readonly path: readonly (string | number)[];
  readonly value: unknown;
}

/** How an edit is laid out. */
export interface JsonTextEditOptions {
  /**
   * False: the edited values are written compactly and no line around them is laid out again, so
   * taking a value out again gives back the text exactly as it was (a person's settings file that
   * Loadout adds entries to and later removes them from). True by default: the edit is laid out
   * in the file's own indentation, which may lay out the line it touches again. A new file is
   * always laid out.
   */
  readonly reflow?: boolean;
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
export function editJsonText(text: string | null, edits: readonly JsonTextEdit[], layout: JsonTextEditOptions = {}): string | null {
  const fresh = text === null || text.trim() === '';
  const original = fresh ? '{}' : text;
  const expected = JSON.parse(original) as unknown;
  const options = formattingOptionsOf(original);
  const reflow = fresh || layout.reflow !== false;
  let edited = original;
  for (const edit of edits) {
    const removal = reflow || edit.value !== undefined ? null : arrayElementRemoval(edited, edit.path);
    edited = applyEdits(edited, removal ?? modify(edited, edit.path as JSONPath, edit.value, reflow ? { formattingOptions: options } : {}));
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

/**
 * Taking an element out of an array without laying anything out: its text and the comma before it
 * (after it, for the first), exactly what adding it compactly put there. jsonc-parser's own removal
 * of a last element assumes a line break before the closing bracket. Null when the path does not
 * name an array's element.
 */
function arrayElementRemoval(text: string, at: readonly (string | number)[]): Edit[] | null {
  const index = at[at.length - 1];
  if (typeof index !== 'number') return null;
  const tree = parseTree(text);
  const parent = tree === undefined ? undefined : findNodeAtLocation(tree, at.slice(0, -1) as JSONPath);
  const siblings = parent?.type === 'array' ? (parent.children ?? []) : null;
  const element = siblings?.[index];
  if (siblings === null || element === undefined) return null;
  const previous = siblings[index - 1];
  const next = siblings[index + 1];
  if (previous !== undefined) {
    const start = previous.offset + previous.length;
    return [{ offset: start, length: element.offset + element.length - start, content: '' }];
  }
  const end = next === undefined ? element.offset + element.length : next.offset;
  return [{ offset: element.offset, length: end - element.offset, content: '' }];
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
  // Removing an array's element closes the gap, as jsonc-parser's edit of the text does.
  if (edit.value === undefined && Array.isArray(holder) && typeof last === 'number') holder.splice(last, 1);
  else if (edit.value === undefined) delete holder[last];
  else holder[last] = JSON.parse(JSON.stringify(edit.value)) as unknown;
}

/** The text's own indentation (two spaces when it shows none) and line ending. */
function formattingOptionsOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)["}\]]/.exec(text)?.[1] ?? '  ';
  const tabs = indent.startsWith('\t');
  return { insertSpaces: !tabs, tabSize: tabs ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}
