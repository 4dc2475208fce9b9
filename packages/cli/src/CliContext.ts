import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLoadout } from '@loadout/app';
import { closeKernel, InvalidInputError, isLoadoutError, type LoadoutError, type Places, redactCredentials, resolvePlaces } from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';

/** The repository this command ships in: the default workspace. */
export const REPOSITORY_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** A bad command line: exit status 2. */
export class UsageError extends InvalidInputError {
  constructor(message: string) {
    super('USAGE', message);
  }
}

/** What every command gets: the workspace's places, a lazily built container, and output. */
export class CliContext {
  private container: DependencyContainer | null = null;
  readonly places: Places;

  constructor(
    readonly env: NodeJS.ProcessEnv = process.env,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {
    this.places = resolvePlaces(env, REPOSITORY_ROOT);
  }

  /** The root container; built on first use so `--help` opens no database. */
  app(options: { watch?: boolean } = {}): DependencyContainer {
    this.container ??= createLoadout({ places: this.places, watch: options.watch === true });
    return this.container;
  }

  /**
   * Runs a command's action and prints its result: with `--json`, one JSON document on stdout and
   * nothing else; otherwise `human(result)`. A refusal prints one line on stderr (and, with
   * `--json`, `{ "error": { code, message } }` on stdout) and sets the exit status.
   */
  async run<T>(json: boolean, action: () => T | Promise<T>, human: (result: T) => string): Promise<void> {
    try {
      const result = await action();
      this.stdout.write(json ? `${JSON.stringify(result, null, 2)}\n` : ensureNewline(human(result)));
    } catch (error) {
      this.fail(json, error);
    }
  }

  /**
   * After a command printed its full result, says that part of it was refused: one line on stderr,
   * exit status 1 (stdout keeps the result, so `--json` still prints one document).
   */
  partlyRefused(message: string): void {
    this.stderr.write(`loadout: ${message.split('\n')[0]}\n`);
    process.exitCode = 1;
  }

  /** Reports an error the way {@link run} does. */
  fail(json: boolean, error: unknown): void {
    const known: LoadoutError | null = isLoadoutError(error) ? error : null;
    const code = known?.code ?? 'INTERNAL';
    const message = redactCredentials(known?.message ?? (error instanceof Error ? error.message : String(error)));
    if (json) this.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    this.stderr.write(`loadout: ${message.split('\n')[0]}\n`);
    if (known === null && this.env.LOADOUT_DEBUG === '1' && error instanceof Error) this.stderr.write(`${error.stack}\n`);
    process.exitCode = exitStatusFor(error);
  }

  close(): void {
    if (this.container !== null) {
      closeKernel(this.container);
      void this.container.dispose();
      this.container = null;
    }
  }
}

/** The one place errors become exit statuses: bad usage 2, any other refusal or failure 1. */
export function exitStatusFor(error: unknown): number {
  return error instanceof UsageError ? 2 : 1;
}

function ensureNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
