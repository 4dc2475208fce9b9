/**
 * Results computed from a text (a skill's `SKILL.md`, a skill's name), kept while the same text
 * comes back: one plan reads each
 * source `SKILL.md` for every runtime it targets and finds the same text again in each copy it
 * wrote, and parsing YAML is most of what an apply with nothing to change costs. Texts over
 * {@link TextMemo.MAX_TEXT} characters are not kept, and the memo empties itself when it holds
 * {@link TextMemo.MAX_ENTRIES}, so a long-running server keeps a bounded amount.
 */
export class TextMemo<T> {
  static readonly MAX_TEXT = 64 * 1024;
  static readonly MAX_ENTRIES = 4096;
  private readonly kept = new Map<string, T>();

  constructor(private readonly compute: (text: string) => T) {}

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
    if (this.kept.size >= TextMemo.MAX_ENTRIES) this.kept.clear();
    this.kept.set(text, value);
  }
}
