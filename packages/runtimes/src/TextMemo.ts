/**
 * Results computed from a text (a skill's `SKILL.md`, a skill's name), kept while the same text
 * comes back: one plan reads each
 * source `SKILL.md` for every runtime it targets and finds the same text again in each copy it
 * wrote, and parsing YAML is most of what an apply with nothing to change costs. Texts over
 * {@link TextMemo.MAX_TEXT} characters are not kept, and the memo empties itself when it holds
 * {@link TextMemo.MAX_ENTRIES} (or the bound it was made with), so a long-running server keeps a
 * bounded amount.
 */
export class TextMemo<T> {
  static readonly MAX_TEXT = 64 * 1024;
  static readonly MAX_ENTRIES = 4096;
  private readonly kept = new Map<string, T>();

  /**
   * `maxEntries` bounds what is kept; a memo asked for more distinct texts in turn than it keeps
   * empties before any comes back and computes every one again, so a memo of short texts a plan
   * asks for per skill (names) is made to hold as many as a large plan has.
   */
  constructor(
    private readonly compute: (text: string) => T,
    private readonly maxEntries: number = TextMemo.MAX_ENTRIES,
  ) {}

  get(text: string): T {
    if (text.length > TextMemo.MAX_TEXT) return this.compute(text);
    const found = this.kept.get(text);
    if (found !== undefined) return found;
    const value = this.compute(text);
    this.keep(text, value);
    return value;
  }

  /** Keeps `value` as what `text` computes to, for a caller that already has it (it must be exactly that). */
  keep(text: string, value: T): void {
    if (text.length > TextMemo.MAX_TEXT) return;
    if (this.kept.size >= this.maxEntries) this.kept.clear();
    this.kept.set(text, value);
  }
}
