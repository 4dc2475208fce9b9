/**
 * Replaces every exact `${NAME}` whose name is in `values`, in one pass: text a replacement put in
 * is never scanned again, and any other `${…}`, `$NAME` or `${NAME:-x}` stays as written.
 *
 * @example
 * expandPlaceholders('${PLUGIN_ROOT}/bin ${HOME}', { PLUGIN_ROOT: '/p' }) // '/p/bin ${HOME}'
 */
export function expandPlaceholders(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (match, name: string) =>
    Object.hasOwn(values, name) ? (values[name] as string) : match,
  );
}
