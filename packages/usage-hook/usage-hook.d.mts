/** One usage event as the hook appends it to the spool, format version 1. */
export interface UsageSpoolLine {
  readonly v: 1;
  readonly at: string;
  readonly runtime: string;
  readonly project: string | null;
  readonly kind: 'skill' | 'command' | 'agent' | 'tool' | 'server';
  readonly name: string;
  readonly server?: string;
  readonly event: 'invoked' | 'failed';
  readonly session?: string;
}

export function usageEvents(payload: unknown, runtime: string, at: string, projectDir: string | undefined): UsageSpoolLine[];
