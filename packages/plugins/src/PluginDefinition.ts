import { z } from 'zod';

/**
 * What a marketplace entry says about its plugin beyond where it is: kept with the installed
 * plugin (and in the lock file) so the plugin reads the same on every machine, with or without
 * the marketplace. With `strict: false` the entry is the plugin's whole definition: its own
 * manifest's component fields are not read, and Loadout's own kind folders are not either. Built on
 * first use (z.lazy): a command that reads no plugin definition never builds it.
 */
export const PluginDefinition = z.lazy(() =>
  z.strictObject({
    /** Which marketplace format the entry came from; a plugin with no manifest is read as this format. */
    format: z.enum(['claude-code', 'codex']),
    strict: z.boolean(),
    /** The entry's `skills`: a `./` path or a list of them. */
    skills: z.union([z.string(), z.array(z.string())]).optional(),
    /** The entry's `mcpServers`: a `./` path, an inline map, or a list of either. */
    mcpServers: z.unknown().optional(),
    /** Component fields Loadout does not load (commands, hooks …), named in the session's report. */
    parts: z.array(z.string()).default([]),
    /** The entry's source is the marketplace's own root: its listed skills are then the complete set. */
    atMarketplaceRoot: z.boolean().default(false),
  }),
);
export type PluginDefinition = z.infer<typeof PluginDefinition>;
