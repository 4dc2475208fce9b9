import fs from 'node:fs';

// The secret store's file format, read with nothing but Node: `loadout mcp run` reads it before
// the command line loads, so a server started through Loadout starts about as soon as without it.

/** The store's file in the data folder: the one file Loadout writes a secret value into. */
export const SECRETS_FILE = 'secrets.json';
/** A secret's name in Loadout's store: what `loadout secrets set NAME` takes. */
export const SECRET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The values of a store file by name, or what is wrong with the file (never quoting its text, which holds values). */
export type SecretFileContent = { readonly values: Record<string, string> } | { readonly problem: string };

/**
 * Reads the store file; a missing file is an empty store. `readText` is `fs`'s own by default (the
 * small entry has no ReadLog and does not load @loadout/files); the store inside the command line
 * passes `trackedFs`'s, so an `apply` hears the read.
 */
export function readSecretFile(file: string, readText: (file: string) => string = (at) => fs.readFileSync(at, 'utf8')): SecretFileContent {
  let text: string;
  try {
    text = readText(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { values: {} } : { problem: `cannot be read (${code ?? 'error'})` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: 'is not valid JSON' };
  }
  const isObject = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value);
  if (!isObject(parsed) || parsed.version !== 1 || !isObject(parsed.secrets))
    return { problem: 'is not a store Loadout wrote (version 1, "secrets" an object)' };
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed.secrets)) {
    if (!SECRET_NAME.test(name) || typeof value !== 'string') return { problem: 'holds an entry that is not a named text' };
    values[name] = value;
  }
  return { values };
}
