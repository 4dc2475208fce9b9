/**
 * Text shown to a person (a terminal, the screen) that others wrote: a plugin's names, command
 * lines, diffs. A terminal obeys control characters (ESC sequences move the cursor and erase, CR
 * returns to the line's start) and the bidirectional-text controls reorder what is shown, so a
 * command under review could be made to look harmless. {@link visibleText} shows each such
 * character as an escape instead (`\x1b`, `\r`, `\u202e`): the text stays readable and nothing
 * in it acts. JSON output keeps the raw value; only text for people goes through here.
 */

/** C0 controls, DEL, C1 controls, and the Unicode controls that reorder or break lines. */
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, but line feeds and tabs are kept: for whole multi-line output Loadout built itself. */
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const CONTROLS_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOf(character: string): string {
  const named = NAMED[character];
  if (named !== undefined) return named;
  const code = character.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control character shown as a visible escape. With `keepLayout`, line feeds
 * and tabs stay (the text is Loadout's own multi-line output, its lines its own); without it they
 * are escaped too, so one value written by someone else is one line and can forge none.
 *
 * @example
 * visibleText('ok\r\x1b[2Kharmless') // 'ok\\r\\x1b[2Kharmless'
 */
export function visibleText(text: string, options: { readonly keepLayout?: boolean } = {}): string {
  const pattern = options.keepLayout === true ? CONTROLS_BUT_LAYOUT : CONTROLS;
  pattern.lastIndex = 0;
  return pattern.test(text) ? text.replace(pattern, escapeOf) : text;
}
