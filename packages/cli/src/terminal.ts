import pc from 'picocolors';

/** picocolors' formatters, all of them plain text where colour is not wanted. */
export type Colors = ReturnType<typeof pc.createColors>;

/**
 * Colours for one stream: on only when that stream is a terminal and `NO_COLOR` is unset or empty
 * (no-color.org), so piped output and files never carry escape codes.
 */
export function colorsFor(stream: NodeJS.WritableStream, env: NodeJS.ProcessEnv): Colors {
  const terminal = (stream as { isTTY?: boolean }).isTTY === true;
  return pc.createColors(terminal && (env.NO_COLOR ?? '') === '');
}
