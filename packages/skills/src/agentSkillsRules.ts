import type { Diagnostic } from '@loadout/kernel';

const SKILL_NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const MAX_DESCRIPTION = 1024;

/**
 * Checks a skill against the Agent Skills rules: a name of 1–64 lower-case letters, digits and
 * hyphens (not at either end, never two in a row) and a description of 1–1024 characters. A break
 * is a warning: the skill still loads.
 */
export function checkAgentSkillsRules(name: unknown, description: unknown, file: string): Diagnostic[] {
  const findings: Diagnostic[] = [];
  if (typeof name !== 'string' || !SKILL_NAME.test(name) || name.includes('--')) {
    findings.push({
      code: 'SKILL_NAME_RULES',
      severity: 'warning',
      path: file,
      message: `${file}: name should be 1-64 characters of a-z, 0-9 and single hyphens (Agent Skills rules)`,
    });
  }
  if (typeof description !== 'string' || description.trim().length === 0 || description.length > MAX_DESCRIPTION) {
    findings.push({
      code: 'SKILL_DESCRIPTION_RULES',
      severity: 'warning',
      path: file,
      message: `${file}: description should be 1-${MAX_DESCRIPTION} characters (Agent Skills rules)`,
    });
  }
  return findings;
}
