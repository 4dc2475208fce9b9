import { type ServerService, ServerServices } from '@loadout/api';
import { spoilReads } from '@loadout/files';
import { contribute, type Registration, resolve } from '@loadout/kernel';
import { type DependencyContainer, Lifecycle } from 'tsyringe';
import { SqlUsageStore } from './SqlUsageStore.js';
import { DEFAULT_USAGE_RETENTION, StoredUsageLedger, UsageLedger, UsageRetention } from './UsageLedger.js';
import { NO_USAGE_LISTINGS, UsageListings } from './UsageListings.js';
import { BatchedUsageRecorder, UsageRecorder, UsageRecorderLog } from './UsageRecorder.js';
import { UsageStore } from './UsageStore.js';

/** How often a serving process takes in the hook spool and prunes the ledger. */
export const INGEST_INTERVAL_MS = 5000;

/**
 * The later part of the usage module: the store, the recorder the faces report to, the ledger,
 * and the server's spool service; `listed` is none until a planner registers {@link UsageListings}. A retention or log set before this part registers is kept.
 */
export const usageLaterModule: Registration = (container) => {
  container.register(UsageStore, { useClass: SqlUsageStore }, { lifecycle: Lifecycle.Singleton });
  if (!container.isRegistered(UsageRetention)) container.register(UsageRetention, { useValue: DEFAULT_USAGE_RETENTION });
  if (!container.isRegistered(UsageRecorderLog))
    container.register(UsageRecorderLog, {
      // A line on stderr is no part of what an `apply` proof keeps: it spoils the current ReadLog.
      useValue: (line: string) => {
        spoilReads('a line on stderr');
        process.stderr.write(`loadout: ${line}\n`);
      },
    });
  // The runtimes module, loaded after this one, registers the listing-budget planner's answer.
  if (!container.isRegistered(UsageListings)) container.register(UsageListings, { useValue: NO_USAGE_LISTINGS });
  container.register(UsageRecorder, { useClass: BatchedUsageRecorder }, { lifecycle: Lifecycle.Singleton });
  container.register(UsageLedger, { useClass: StoredUsageLedger }, { lifecycle: Lifecycle.Singleton });
  contribute(container, ServerServices, spoolService(container));
};

/** Sets how many days the ledger keeps (`LOADOUT_KEEP_USAGE_DAYS`). */
export function configureUsageRetention(container: DependencyContainer, retention: UsageRetention): void {
  container.register(UsageRetention, { useValue: retention });
}

/**
 * While the server serves: the spool taken in (and the ledger pruned) when it starts and every
 * {@link INGEST_INTERVAL_MS}, one ingest at a time; what the faces recorded is written when it stops.
 */
function spoolService(container: DependencyContainer): ServerService {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  return {
    name: 'usage',
    start: async ({ log }) => {
      const ledger = resolve(container, UsageLedger);
      const first = await ledger.ingest();
      timer = setInterval(() => {
        running = running.then(() =>
          ledger.ingest().then(
            ({ ingested }) => {
              if (ingested.invalid + ingested.dropped > 0)
                log(`usage spool: ${ingested.invalid} invalid and ${ingested.dropped} dropped line(s): ${ingested.problems.join('; ')}`);
            },
            (error: unknown) => log(`usage spool: ${(error as Error).message}`),
          ),
        );
      }, INGEST_INTERVAL_MS);
      timer.unref();
      return { lines: [], json: { usage: { ingested: first.ingested.recorded, pruned: first.pruned } } };
    },
    stop: async () => {
      if (timer !== null) clearInterval(timer);
      timer = null;
      await running;
      await resolve(container, UsageRecorder).flush();
    },
  };
}
