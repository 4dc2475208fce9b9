import path from 'node:path';
import {
  ConflictError,
  ensurePrivateFolder,
  InvalidInputError,
  narrowMode,
  NotFoundError,
  PRIVATE_FILE_MODE,
  trackedFs,
  withFileLock,
  writeFileAtomicSync,
} from '@loadout/files';
import { readSecretFile, SECRET_NAME, SECRETS_FILE } from './secretFile.js';

/** A value larger than this is no credential; refusing it keeps the store small. */
const MAX_VALUE_BYTES = 16 * 1024;

/** A secret name the store does not take. */
export class SecretNameInvalidError extends InvalidInputError {
  constructor(name: string) {
    super(
      'SECRET_NAME_INVALID',
      `"${name.slice(0, 64)}" is not a secret name: 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
}

/** A value the store does not take (empty, too large, or not text). */
export class SecretValueInvalidError extends InvalidInputError {
  constructor(problem: string) {
    super('SECRET_VALUE_INVALID', `the secret's value ${problem}`);
  }
}

/** No secret of that name is kept. */
export class SecretNotFoundError extends NotFoundError {
  constructor(name: string) {
    super('SECRET_NOT_FOUND', `no secret "${name.slice(0, 64)}" is kept; \`loadout secrets set ${name.slice(0, 64)}\` reads it from stdin`);
  }
}

/** The store's file cannot be read as a store: nothing is changed in it. */
export class SecretStoreInvalidError extends ConflictError {
  constructor(problem: string, options?: { cause?: unknown }) {
    super('SECRET_STORE_INVALID', `the secret store (${SECRETS_FILE} in the data folder) ${problem}; nothing was changed`, options);
  }
}

/**
 * Secret values for servers, by name, in `<data>/secrets.json` (mode 0600, in the private data
 * folder), never in the capabilities repository. Values leave it only for the process of a server
 * that names them (`loadout mcp run`); listings show names only.
 */
export class SecretStore {
  private readonly file: string;

  constructor(private readonly dataDir: string) {
    this.file = path.join(dataDir, SECRETS_FILE);
  }

  /** The names kept, sorted. */
  names(): string[] {
    return Object.keys(this.read()).sort();
  }

  has(name: string): boolean {
    return Object.hasOwn(this.read(), name);
  }

  /** The value of `name`; throws `SECRET_NOT_FOUND` when none is kept. */
  value(name: string): string {
    const values = this.read();
    if (!Object.hasOwn(values, name)) throw new SecretNotFoundError(name);
    return values[name] as string;
  }

  /** Keeps `value` under `name`, replacing any value it had. */
  async set(name: string, value: string): Promise<void> {
    checkName(name);
    if (value === '') throw new SecretValueInvalidError('is empty');
    if (Buffer.byteLength(value) > MAX_VALUE_BYTES) throw new SecretValueInvalidError(`is over ${MAX_VALUE_BYTES} bytes`);
    if (value.includes('\0')) throw new SecretValueInvalidError('holds a NUL character');
    await this.change((values) => ({ ...values, [name]: value }));
  }

  /** Forgets `name`; throws `SECRET_NOT_FOUND` when none is kept. */
  async remove(name: string): Promise<void> {
    checkName(name);
    await this.change((values) => {
      if (!Object.hasOwn(values, name)) throw new SecretNotFoundError(name);
      const { [name]: _gone, ...rest } = values;
      return rest;
    });
  }

  /** Read, change and write under the file's lock, so two commands never lose each other's secret. */
  private async change(edit: (values: Record<string, string>) => Record<string, string>): Promise<void> {
    ensurePrivateFolder(this.dataDir);
    await withFileLock(this.file, () => {
      const next = edit(this.read());
      const sorted = Object.fromEntries(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      writeFileAtomicSync(this.file, `${JSON.stringify({ version: 1, secrets: sorted }, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
      narrowMode(this.file, PRIVATE_FILE_MODE);
    });
  }

  private read(): Record<string, string> {
    const content = readSecretFile(this.file, (file) => trackedFs.readFileSync(file, 'utf8'));
    if ('problem' in content) throw new SecretStoreInvalidError(content.problem);
    return content.values;
  }
}

function checkName(name: string): void {
  if (!SECRET_NAME.test(name)) throw new SecretNameInvalidError(name);
}
