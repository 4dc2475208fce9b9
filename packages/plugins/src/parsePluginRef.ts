import { PluginInputRefusedError } from './PluginErrors.js';

const MAX_REF_LENGTH = 255;

/**
 * Checks a branch or tag name given with `--ref`. Stricter than `git check-ref-format`: letters,
 * digits, `.`, `_`, `/` and `-`, never a leading `-` (git would read an option), no `..`, no
 * component starting with `.`, no trailing `/`, `.` or `.lock`.
 */
export function parsePluginRef(ref: string): string {
  const refuse = (reason: string): never => {
    const shown = JSON.stringify(ref.length > 80 ? `${ref.slice(0, 80)}…` : ref);
    throw new PluginInputRefusedError('PLUGIN_REF_INVALID', `ref ${shown} ${reason}`);
  };
  if (ref.length === 0 || ref.length > MAX_REF_LENGTH) refuse(`must be 1-${MAX_REF_LENGTH} characters`);
  if (ref.startsWith('-')) refuse('starts with "-" and would be read by git as an option');
  if (!/^[A-Za-z0-9._/-]+$/.test(ref)) refuse('may hold only letters, digits, ".", "_", "/" and "-"');
  if (ref.includes('..') || ref.includes('//') || ref.endsWith('/') || ref.endsWith('.') || ref.endsWith('.lock')) {
    refuse('is not a valid branch or tag name');
  }
  if (ref.split('/').some((component) => component.startsWith('.') || component.startsWith('-'))) {
    refuse('has a path component starting with "." or "-"');
  }
  return ref;
}

/** Checks a full commit id (from a marketplace entry or the lock file) before git sees it. */
export function parsePluginCommit(commit: unknown, origin: string): string {
  if (typeof commit === 'string' && /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(commit)) return commit;
  const shown = JSON.stringify(String(commit).slice(0, 80));
  throw new PluginInputRefusedError('PLUGIN_COMMIT_INVALID', `commit ${shown} (from ${origin}) must be a full lower-case commit id`);
}

/**
 * Checks a plugin's root inside its repository (`plugins/pdf`): relative, `/`-separated, made of
 * ordinary names (no `.`, `..` or empty part, none starting with `-`). A leading `./` and trailing
 * `/` are dropped; `''` and `.` mean the repository itself.
 */
export function parsePluginPath(value: string, origin: string): string {
  const trimmed = value.replace(/^\.\/+/, '').replace(/\/+$/, '');
  if (trimmed === '' || trimmed === '.') return '';
  const parts = trimmed.split('/');
  if (
    trimmed.length > 1024 ||
    /[\\\p{Cc}]/u.test(trimmed) ||
    parts.some((part) => part === '' || part === '.' || part === '..' || part.startsWith('-'))
  ) {
    throw new PluginInputRefusedError(
      'PLUGIN_PATH_INVALID',
      `plugin path ${JSON.stringify(value.slice(0, 80))} (from ${origin}) must be a relative path inside the repository`,
    );
  }
  return parts.join('/');
}
