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
