// Targets of `pnpm bench`: each is a ratio measured against a baseline of the same run, with the
// limit the issue set. Every benchmark lists its targets in its JSON document (`targets`) and on
// stderr, one line each, met or not met; `run.mjs` sums them up and, with --strict, fails on a miss.

/**
 * One target. `also` is a condition the figure needs besides its ratio (e.g. "an edited document
 * is seen"); it is named in `note` when it fails.
 *
 * @returns {{ target: string, ratio: number, limit: number, met: boolean, note?: string }}
 */
export function target(name, ratio, limit, also = { holds: true, note: '' }) {
  const rounded = Math.round(ratio * 1000) / 1000;
  const met = Number.isFinite(ratio) && ratio <= limit && also.holds;
  return { target: name, ratio: rounded, limit, met, ...(also.holds ? {} : { note: also.note }) };
}

/** Prints one line per target on stderr: `bench <name>: <target>: <ratio>× (limit <limit>×) — met | NOT met`. */
export function printTargets(bench, targets) {
  for (const t of targets) {
    process.stderr.write(
      `bench ${bench}: ${t.target}: ${t.ratio}× (limit ${t.limit}×) — ${t.met ? 'met' : 'NOT met'}${t.note ? ` (${t.note})` : ''}\n`,
    );
  }
}
