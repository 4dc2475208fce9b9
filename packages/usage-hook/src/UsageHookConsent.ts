import path from 'node:path';
import { InvalidInputError, trackedFs, writeFileAtomicSync } from '@loadout/files';
import { z } from 'zod';

/** The folder under the data folder that holds the consent file and the spool the hook appends to. */
export const USAGE_FOLDER = 'usage';
/** The owner's consent, read by `apply` and by the hook program itself (usage-hook.mjs reads the same shape). */
const CONSENT_FILE = 'hook.json';

const consentSchema = z.object({ version: z.literal(1), runtimes: z.array(z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/)) });

/** The consent file is not Loadout's shape: it is reported, never overwritten in silence. */
export class UsageHookConsentInvalidError extends InvalidInputError {
  constructor(file: string, reason: string) {
    super('USAGE_HOOK_CONSENT_INVALID', `${file} does not hold the usage hook's consent (${reason}); fix or remove it`);
  }
}

/**
 * Which runtimes the owner agreed to have Loadout's usage hook written into, kept in
 * `<data>/usage/hook.json`. No file is no consent: the hook is never written by default.
 */
export class UsageHookConsent {
  private constructor(
    private readonly dataDir: string,
    readonly runtimes: readonly string[],
  ) {}

  /** The folder the hook program is given: it reads the consent there and appends under `spool/`. */
  static usageDir(dataDir: string): string {
    return path.join(dataDir, USAGE_FOLDER);
  }

  static read(dataDir: string): UsageHookConsent {
    const file = path.join(UsageHookConsent.usageDir(dataDir), CONSENT_FILE);
    let text: string;
    try {
      text = trackedFs.readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new UsageHookConsent(dataDir, []);
      throw error;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new UsageHookConsentInvalidError(file, (error as Error).message);
    }
    const parsed = consentSchema.safeParse(raw);
    if (!parsed.success) throw new UsageHookConsentInvalidError(file, parsed.error.issues[0]?.message ?? 'unexpected shape');
    return new UsageHookConsent(dataDir, [...new Set(parsed.data.runtimes)].sort());
  }

  isOn(runtime: string): boolean {
    return this.runtimes.includes(runtime);
  }

  /** The consent with these runtimes turned on or off, written at once (the hook reads it at its next run). */
  with(runtimes: readonly string[], on: boolean): UsageHookConsent {
    const next = on ? [...new Set([...this.runtimes, ...runtimes])] : this.runtimes.filter((runtime) => !runtimes.includes(runtime));
    const consent = new UsageHookConsent(this.dataDir, next.sort());
    const usageDir = UsageHookConsent.usageDir(this.dataDir);
    trackedFs.mkdirSync(path.join(usageDir, 'spool'), { recursive: true, mode: 0o700 });
    writeFileAtomicSync(path.join(usageDir, CONSENT_FILE), `${JSON.stringify({ version: 1, runtimes: consent.runtimes }, null, 2)}\n`);
    return consent;
  }
}
