import type { RootLayout } from './RootLayout.js';
import { token } from './token.js';

export type Level = 'project' | 'global';

/** One folder a session reads capabilities from. */
export interface Root {
  /** Absolute path of the root; kind folders (`skills/`, `tasks/` …) sit directly beneath it. */
  readonly dir: string;
  readonly level: Level;
  /** The plugin that owns this root, or null for the owner's own roots. */
  readonly plugin: string | null;
  /** Only the owner's roots are writable. */
  readonly writable: boolean;
  /** Where a plugin root's documents are when its manifest places them; absent: one folder per kind at the top. */
  readonly layout?: RootLayout;
}

/** The roots of one session, in precedence order: the first root that holds an id wins. */
export type RootList = readonly Root[];
export const RootList = token<RootList>('kernel.rootList');

/** The folder name of a project's level root inside the project. */
export const PROJECT_ROOT_FOLDER = '.agents';
