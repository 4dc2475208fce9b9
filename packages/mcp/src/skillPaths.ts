import type { SkillRecord } from '@loadout/skills';

/** The Agent Skills naming rule the last segment of a skill path must meet. */
const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
/** A plugin name usable as the first segment (a URI authority, RFC 3986 reg-name, unreserved characters only). */
const AUTHORITY = /^[A-Za-z0-9._~-]{1,128}$/;

/**
 * Where a skill lives under `skill://` for the Skills extension: its name for the owner's and a
 * project's skills (`skill://pdf/SKILL.md`), `<plugin>/<name>` for a plugin's
 * (`skill://acme/pdf/SKILL.md`), so two plugins' skills of one name never share a URI. Null when
 * the skill cannot be served as the extension asks: a name that breaks the Agent Skills naming
 * rule (the final path segment must equal it), no description, or a plugin name that is not a
 * URI authority. Such a skill keeps Loadout's own `skill://<id>` URIs only.
 */
export function skillPathOf(record: Pick<SkillRecord, 'name' | 'description' | 'plugin'>): string | null {
  if (!SKILL_NAME.test(record.name) || record.description.trim() === '') return null;
  if (record.plugin === null) return record.name;
  return AUTHORITY.test(record.plugin) ? `${record.plugin}/${record.name}` : null;
}

/** The URI of a skill's manifest, `skill://<skill-path>/SKILL.md`. */
export function skillManifestUri(skillPath: string): string {
  return `skill://${skillPath}/SKILL.md`;
}

/** The URI of one of a served skill's other files, `skill://<skill-path>/<file-path>` (each segment encoded). */
export function skillFileUri(skillPath: string, relative: string): string {
  return `skill://${skillPath}/${relative.split('/').map(encodeURIComponent).join('/')}`;
}
