/** Something a session, a scan or a plan wants the owner to know. Never a document's body. */
export interface Diagnostic {
  /** Stable, upper snake case, e.g. `SHADOWED`, `FRONTMATTER_MALFORMED`. */
  readonly code: string;
  readonly message: string;
  readonly severity: 'info' | 'warning' | 'error';
  /** The document or folder concerned, when there is one. */
  readonly path?: string;
  /** Ids the diagnostic is about, when there are more than a message should list. */
  readonly subjects?: readonly string[];
}
