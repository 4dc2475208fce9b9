/** Diagnostics as lines for people, most severe first. */
export function formatDiagnostics(diagnostics: readonly { severity: string; code: string; message: string }[]): string[] {
  if (diagnostics.length === 0) return [];
  const order = { error: 0, warning: 1, info: 2 } as Record<string, number>;
  const sorted = [...diagnostics].sort((a, b) => (order[a.severity] ?? 3) - (order[b.severity] ?? 3));
  return [`diagnostics (${diagnostics.length}):`, ...sorted.map((d) => `  ${d.severity} ${d.code}: ${d.message}`)];
}

/** Rows of text as aligned columns. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}
