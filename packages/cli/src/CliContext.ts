import { closeKernel, findProjectFolder, type Places, redactCredentials, resolvePlaces, visibleText } from '@loadout/kernel';
import { InvalidInputError, isLoadoutError, type LoadoutError, NotFoundError, spoilReads } from '@loadout/files';
import type { DependencyContainer } from 'tsyringe';
import { REPOSITORY_ROOT } from './cliPaths.js';
import { fixFor } from './errorFixes.js';
import { colorsFor } from './terminal.js';

/** What features.ts exports: all that a session-only command ({@link CliContext.readsSessionsOnly}) has. */
export type SessionFeatures = typeof import('./features.js');

/** The feature packages' values the commands' actions use (features.ts and laterFeatures.ts), once loaded. */
export type Features = SessionFeatures & typeof import('./laterFeatures.js');

/** How `--project` reads where {@link CliContext.projectFor} looks for it. */
export const PROJECT_OPTION_HELP =
  'the folder the agent works in (default: the nearest folder at or above the working folder with .agents/)';

/** A bad command line: exit status 2. `fix` names the help that shows what the command takes. */
export class UsageError extends InvalidInputError {
  constructor(
    message: string,
    readonly fix: string | null = null,
  ) {
    super('USAGE', message);
  }
}

/**
 * A command name the program does not have (`loadout sesion`): an unknown name like any other, so
 * it exits 1, with commander's nearest match as its fix.
 */
export class UnknownCommandError extends NotFoundError {
  constructor(
    message: string,
    readonly fix: string | null,
  ) {
    super('UNKNOWN_COMMAND', message);
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
  /** The project {@link projectFor} found from the working folder, said before a text answer. */
  private foundProject: string | null = null;

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

  /** Every line this context says on stderr: the `apply` proof keeps stdout alone, so a run that says one keeps none. */
  private toStderr(text: string): void {
    spoilReads('a line on stderr');
    this.stderr.write(text);
  }

  /**
   * The project a command works on: `--project` when given, else the nearest folder at or above the
   * working folder that holds `.agents/` (the home folder's own `.agents` never counts), else none.
   * A found one is said in the text answer, so nobody wonders why project capabilities showed up.
   */
  projectFor(option: string | undefined, cwd: string = process.cwd()): string | null {
    if (option !== undefined) return option;
    this.foundProject = findProjectFolder(cwd, this.env.HOME ?? null, 'project-folder');
    return this.foundProject;
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
    options: {
      failure?: (result: T) => string | null;
      /** Called once the answer is out, with everything it wrote to stdout and whether it failed. */
      printed?: (result: T, stdout: string, failed: boolean) => void;
      /** What the action does, e.g. `updating plugins`: said on a terminal's stderr once it takes over a second. */
      progress?: string;
    } = {},
  ): Promise<void> {
    let result: T;
    const stopProgress = options.progress === undefined ? () => undefined : this.progressLines(options.progress);
    try {
      result = await action();
    } catch (error) {
      stopProgress();
      this.fail(json, error);
      return;
    }
    stopProgress();
    // Text for people shows what others wrote (a plugin's command lines, names, diffs) with its
    // control characters visible, so none of it can move the cursor or erase what is under review;
    // JSON keeps every value as it is.
    const answer = json ? `${JSON.stringify(result, null, 2)}\n` : ensureNewline(visibleText(human(result), { keepLayout: true }));
    const foundNote =
      !json && this.foundProject !== null
        ? `${colorsFor(this.stdout, this.env).dim(`(project ${this.foundProject}, found from the working folder; --project DIR picks another)`)}\n`
        : '';
    // `printed` gets all of stdout, the note too: an `apply` answered from its proof prints it again.
    const printed = foundNote + answer;
    this.stdout.write(printed);
    const failure = options.failure?.(result) ?? null;
    if (failure !== null) this.toStderr(this.errorLine(redactCredentials(failure), null));
    this.settle(failure === null ? { kind: 'done' } : { kind: 'failed' });
    options.printed?.(result, printed, failure !== null);
  }

  /**
   * Progress for a person waiting at a terminal: a line on stderr once the work took a second, then
   * one every five seconds with the time so far. Nothing when stderr is no terminal (scripts, logs,
   * tests), so stdout and the exit status never change with it. Returns the stop.
   */
  private progressLines(label: string): () => void {
    if ((this.stderr as { isTTY?: boolean }).isTTY !== true) return () => undefined;
    const started = Date.now();
    const colors = colorsFor(this.stderr, this.env);
    const say = (): void => void this.toStderr(colors.dim(`loadout: ${label}… (${Math.round((Date.now() - started) / 1000)} s)\n`));
    let timer = setTimeout(function first() {
      say();
      timer = setInterval(say, 5000);
    }, 1000);
    return () => {
      clearTimeout(timer);
      clearInterval(timer);
    };
  }

  /** Reports an error the way {@link run} does. */
  fail(json: boolean, error: unknown): void {
    const known: LoadoutError | null = isLoadoutError(error) ? error : null;
    const code = known?.code ?? 'INTERNAL';
    const message = redactCredentials(known?.message ?? (error instanceof Error ? error.message : String(error)));
    if (json) this.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    const fix = error instanceof UnknownCommandError || (error instanceof UsageError && error.fix !== null) ? error.fix : fixFor(code);
    this.toStderr(this.errorLine(message, fix));
    if (known === null && this.env.LOADOUT_DEBUG === '1' && error instanceof Error) this.toStderr(`${error.stack}\n`);
    this.settle({ kind: 'error', error });
  }

  /**
   * An error as people read it: one line on stderr, the whole message (a multi-line one joined,
   * never cut at its first line) and its fix after it, `loadout:` in red on a terminal.
   */
  private errorLine(message: string, fix: string | null): string {
    const colors = colorsFor(this.stderr, this.env);
    const whole = visibleText(
      message
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '')
        .join(' '),
    );
    return `${colors.red('loadout:')} ${whole}${fix === null ? '' : colors.dim(` (fix: ${fix})`)}\n`;
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
