import fs from 'node:fs';
import { CLI_PACKAGE_JSON } from './cliPaths.js';

/** `loadout --version` (or `-v`, or `-V`), with or without `--json`, and nothing else. */
export function wantsVersion(args: readonly string[]): boolean {
  const rest = args.filter((arg) => arg !== '--json');
  return rest.length === 1 && (rest[0] === '--version' || rest[0] === '-v' || rest[0] === '-V');
}

/** The command's version, from its package manifest. */
export function cliVersion(): string {
  return (JSON.parse(fs.readFileSync(CLI_PACKAGE_JSON, 'utf8')) as { version: string }).version;
}

/** Prints the command's version: the bare number, or `{ "version": … }` under `--json`. */
export function printVersion(json: boolean): void {
  const version = cliVersion();
  process.stdout.write(json ? `${JSON.stringify({ version }, null, 2)}\n` : `${version}\n`);
}
