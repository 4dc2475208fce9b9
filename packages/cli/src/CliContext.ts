import { closeKernel, InvalidInputError, isLoadoutError, type LoadoutError, type Places, redactCredentials, resolvePlaces, visibleText } from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';
import { REPOSITORY_ROOT } from './cliPaths.js';

/** What features.ts exports: all that a session-only command ({@link CliContext.readsSessionsOnly}) has. */
export type SessionFeatures = typeof import('./features.js');

/** The feature packages' values the commands' actions use (features.ts and laterFeatures.ts), once loaded. */
export type Features = SessionFeatures & typeof import('./laterFeatures.js');

/** A bad command line: exit status 2. */
export class UsageError extends InvalidInputError {
  constructor(message: string) {
    super('USAGE', message);
  }
}

/**
 * What every command gets: the workspace's places, a lazily built container, and output. `F` is
 * what its {@link features} hold: everything, or for a session-only command features.ts alone.
 */
export class CliContext<F extends SessionFeatures = Features> {
  private container: DependencyContainer | null = null;
  private loaded: SessionFeatures | null = null;
  private readonly sessionOnly = new WeakSet<object>();
  readonly places: Places;
  /** `--database-url`, set before the command's action runs; else `LOADOUT_DATABASE_URL` decides. */
  databaseUrl: string | undefined;
  /** The build's identity (the bundle's content hash) when run from the bundle; null otherwise. */
  build: string | null = null;

  constructor(
    readonly env: NodeJS.ProcessEnv = process.env,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {
    this.places = resolvePlaces(env, REPOSITORY_ROOT);
  }

  /**
   * Marks a command whose action opens sessions and nothing else (`loadout session`): it loads
   * features.ts alone, and its container is made without the app's later modules (runtimes, MCP),
   * which contribute nothing a session reads. Every other command gets the whole app. Returns the
   * context as that command's action may use it: its features are features.ts alone, so reaching
   * for a later part there does not compile.
   */
  readsSessionsOnly(command: object): CliContext<SessionFeatures> {
    this.sessionOnly.add(command);
    return this;
  }

  /**
   * Loads the feature packages (features.ts, and for every command not marked with
   * {@link readsSessionsOnly} laterFeatures.ts and the app's later modules, so that its container
   * is whole). The command line calls it before any action runs, once the arguments parsed: help
   * and usage errors never evaluate them.
   */
  async load(command: object): Promise<void> {
    if (this.loaded === null) {
      const features = await import('./features.js');
      if (this.sessionOnly.has(command)) {
        // The later features are left out: a session-only command's context is typed without them.
        this.loaded = features;
      } else {
        const [later] = await Promise.all([import('./laterFeatures.js'), features.loadModules(features.loadoutModules)]);
        this.loaded = { ...features, ...later };
      }
    }
  }

  /** The feature packages; an action runs only after {@link load}, which loaded what `F` says. */
  get features(): F {
    if (this.loaded === null) throw new Error('the command line used a feature before loading them');
    return this.loaded as F;
  }

  /** The root container; built on first use so `--help` opens no database. */
  app(options: { watch?: boolean } = {}): DependencyContainer {
    if (this.container === null) {
      const watchBudget = options.watch === true ? this.features.watchBudgetFrom(this.env) : undefined;
      this.container = this.features.createLoadout({
        places: this.places,
        watch: options.watch === true,
        databaseUrl: this.databaseUrl ?? this.env.LOADOUT_DATABASE_URL ?? '',
        ...(watchBudget === undefined ? {} : { watchBudget }),
      });
    }
    return this.container;
  }

  /**
   * Runs a command's action and prints its result: with `--json`, one JSON document on stdout and
   * nothing else; otherwise `human(result)`. A refusal prints one line on stderr (and, with
   * `--json`, `{ "error": { code, message } }` on stdout). A result that says the command did not
   * do what was asked (a failed task, runtime folders that differ from the plan, a state change
   * that was refused) is printed whole, and `failure` gives the one line for stderr. Either way
   * the exit status is set here, through {@link exitStatusFor}.
   *
   * @param options.failure a one-line reason when `result` reports a failure, else null
   */
  async run<T>(
    json: boolean,
    action: () => T | Promise<T>,
    human: (result: T) => string,
    options: { failure?: (result: T) => string | null; printed?: (result: T, stdout: string, failed: boolean) => void } = {},
  ): Promise<void> {
    let result: T;
    try {
      result = await action();
    } catch (error) {
      this.fail(json, error);
      return;
    }
    // Text for people shows what others wrote (a plugin's command lines, names, diffs) with its
    // control characters visible, so none of it can move the cursor or erase what is under review;
    // JSON keeps every value as it is.
    const printed = json ? `${JSON.stringify(result, null, 2)}\n` : ensureNewline(visibleText(human(result), { keepLayout: true }));
    this.stdout.write(printed);
    const failure = options.failure?.(result) ?? null;
    if (failure !== null) this.stderr.write(`loadout: ${visibleText(redactCredentials(failure).split('\n')[0] as string)}\n`);
    this.settle(failure === null ? { kind: 'done' } : { kind: 'failed' });
    options.printed?.(result, printed, failure !== null);
  }

  /** Reports an error the way {@link run} does. */
  fail(json: boolean, error: unknown): void {
    const known: LoadoutError | null = isLoadoutError(error) ? error : null;
    const code = known?.code ?? 'INTERNAL';
    const message = redactCredentials(known?.message ?? (error instanceof Error ? error.message : String(error)));
    if (json) this.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    this.stderr.write(`loadout: ${visibleText(message.split('\n')[0] as string)}\n`);
    if (known === null && this.env.LOADOUT_DEBUG === '1' && error instanceof Error) this.stderr.write(`${error.stack}\n`);
    this.settle({ kind: 'error', error });
  }

  /** Sets the process's exit status for how the command ended: the only place that does. */
  settle(outcome: CommandOutcome): void {
    process.exitCode = exitStatusFor(outcome);
  }

  close(): void {
    if (this.container !== null) {
      closeKernel(this.container);
      void this.container.dispose();
      this.container = null;
    }
  }
}

/**
 * How a command ended: it did what was asked (`done`), it ran to its end and reports that it did
 * not (`failed`: its result was printed), or it stopped on an error.
 */
export type CommandOutcome = { readonly kind: 'done' } | { readonly kind: 'failed' } | { readonly kind: 'error'; readonly error: unknown };

/** The one place outcomes become exit statuses: done 0, bad usage 2, any other refusal or failure 1. */
export function exitStatusFor(outcome: CommandOutcome): number {
  if (outcome.kind === 'done') return 0;
  return outcome.kind === 'error' && outcome.error instanceof UsageError ? 2 : 1;
}

function ensureNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
