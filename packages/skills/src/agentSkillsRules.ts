import { type Diagnostic, parseFlatMapping, parseMarkdown } from '@loadout/kernel';
import { DocumentRefusedError } from '@loadout/files';
import yaml from 'js-yaml';

/** The most UTF-16 units an Agent Skills name may have once normalized. */
export const MAX_AGENT_SKILL_NAME = 64;
/** The most UTF-16 units a description may have. */
export const MAX_AGENT_SKILL_DESCRIPTION = 1024;
const MAX_COMPATIBILITY = 500;
/** The only frontmatter fields the Agent Skills specification allows. */
export const AGENT_SKILL_FIELDS: readonly string[] = ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'];

/**
 * The letter blocks the reference validator (skills-ref) accepts beyond ASCII: Latin-1 and Latin
 * Extended-A/B, Cyrillic, the CJK ideographs. The Python reference accepts any Unicode letter or
 * digit, so a character must also be a letter to pass both (that leaves out `×` and `÷`, which the
 * npm port's ranges happen to include, and stray combining marks).
 */
const LETTER_BLOCKS: readonly (readonly [number, number])[] = [
  [0x00c0, 0x024f],
  [0x0400, 0x04ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
];
const UNICODE_LETTER = /^\p{L}$/u;
const ASCII_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

function isNameCharacter(character: string): boolean {
  if (/^[a-z0-9-]$/i.test(character)) return true;
  const code = character.codePointAt(0) as number;
  return LETTER_BLOCKS.some(([low, high]) => code >= low && code <= high) && UNICODE_LETTER.test(character);
}

/**
 * What is wrong with `name` as an Agent Skills name, as the reference validator judges it: the
 * NFKC form of the trimmed name must be 1–64 characters of lower-case letters, digits and hyphens,
 * with no hyphen at either end and never two in a row. Empty when it is valid.
 */
export function agentSkillNameProblems(name: unknown): string[] {
  // Most names are plain ASCII slugs: one test instead of normalizing and walking each character.
  if (typeof name === 'string' && name.length <= MAX_AGENT_SKILL_NAME && ASCII_NAME.test(name)) return [];
  if (typeof name !== 'string' || name.trim() === '') return ['name is missing or not a text'];
  const normalized = name.trim().normalize('NFKC');
  const problems: string[] = [];
  if (normalized.length > MAX_AGENT_SKILL_NAME) problems.push(`name is longer than ${MAX_AGENT_SKILL_NAME} characters`);
  if (normalized !== normalized.toLowerCase()) problems.push('name must be lower-case');
  if (normalized.startsWith('-') || normalized.endsWith('-')) problems.push('name cannot start or end with a hyphen');
  if (normalized.includes('--')) problems.push('name cannot hold two hyphens in a row');
  if (![...normalized].every(isNameCharacter)) problems.push('name may hold only letters, digits and hyphens');
  return problems;
}

/**
 * The name a runtime folder takes for a skill: the NFKC form of its trimmed frontmatter name, when
 * that is a valid Agent Skills name; null otherwise.
 */
export function agentSkillName(name: unknown): string | null {
  return agentSkillNameProblems(name).length === 0 ? (name as string).trim().normalize('NFKC') : null;
}

/**
 * The rules of the Agent Skills reference validator, each as Loadout names it: `fields` (a field
 * the specification does not list), `description-length` (over 1,024 characters), and the rest.
 */
export type AgentSkillRule = 'frontmatter' | 'fields' | 'name' | 'folder-name' | 'description' | 'description-length' | 'compatibility';

/** One rule a skill folder breaks, and what the validator would say of it. */
export interface AgentSkillBreak {
  readonly rule: AgentSkillRule;
  readonly message: string;
}

/**
 * The rules real runtimes do not enforce: Claude Code 2.1.197 and Codex 0.171.0 both load a skill
 * with extra frontmatter fields (`version`, `user-invocable`, `tools`, `disable-model-invocation`)
 * and one whose description runs past 1,024 characters (packages/e2e asks them). Breaking one of
 * these makes a skill not portable, not unloadable: each runtime's own admission decides.
 */
export const RUNTIME_TOLERATED_RULES: ReadonlySet<AgentSkillRule> = new Set<AgentSkillRule>(['fields', 'description-length']);

/** The frontmatter fields of `record` the Agent Skills specification does not list, in name order. */
export function extraAgentSkillFields(record: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(record)
    .filter((key) => !AGENT_SKILL_FIELDS.includes(key))
    .sort();
}

/**
 * The messages of {@link agentSkillFolderBreaks}: every rule of the Agent Skills reference
 * validator that the folder breaks; empty when `skills-ref validate` accepts it.
 */
export function agentSkillFolderProblems(skillFileText: string, folderName: string, refusal?: DocumentRefusedError | null): string[] {
  return agentSkillFolderBreaks(skillFileText, folderName, refusal).map((problem) => problem.message);
}

/**
 * Every rule of the Agent Skills reference validator that a skill folder named `folderName` with
 * this `SKILL.md` text breaks, by rule; empty when `skills-ref validate` accepts it. The frontmatter
 * is read the way the validator reads it (from the first `---` to the next, with js-yaml's default
 * schema), after Loadout's own bounded reading has accepted it. Stricter in one way: `name` and
 * `description` must be texts, never numbers or dates the validator would stringify.
 *
 * @param refusal what `parseMarkdown` threw for this very text (null: it read it), when the caller
 *   already asked; absent, it is asked here
 */
export function agentSkillFolderBreaks(
  skillFileText: string,
  folderName: string,
  refusal?: DocumentRefusedError | null,
): AgentSkillBreak[] {
  const broken = (rule: AgentSkillRule, message: string): AgentSkillBreak => ({ rule, message });
  if (!skillFileText.startsWith('---'))
    return [broken('frontmatter', 'SKILL.md must start with a frontmatter block (---), with nothing before it')];
  const parts = skillFileText.split('---', 3);
  if (parts.length < 3) return [broken('frontmatter', 'the frontmatter block is never closed with ---')];
  if (refusal === undefined) {
    try {
      parseMarkdown(skillFileText, 'SKILL.md');
    } catch (error) {
      if (!(error instanceof DocumentRefusedError)) throw error;
      return [broken('frontmatter', error.message)];
    }
  } else if (refusal !== null) return [broken('frontmatter', refusal.message)];
  let fields: unknown;
  try {
    fields = validatorFields(parts[1] as string);
  } catch {
    return [
      broken(
        'frontmatter',
        'the frontmatter is not valid YAML up to the first --- (a --- inside a value ends the block for the validator)',
      ),
    ];
  }
  if (fields === null || fields === undefined) fields = {};
  if (typeof fields !== 'object' || Array.isArray(fields)) return [broken('frontmatter', 'the frontmatter must be a mapping of fields')];
  const record = fields as Record<string, unknown>;
  const problems: AgentSkillBreak[] = [];
  const extra = extraAgentSkillFields(record);
  if (extra.length > 0) problems.push(broken('fields', extraFieldsMessage(extra)));
  if (!('name' in record)) problems.push(broken('name', 'name is missing'));
  else {
    const nameProblems = agentSkillNameProblems(record.name);
    problems.push(...nameProblems.map((message) => broken('name', message)));
    if (nameProblems.length === 0 && folderName.normalize('NFKC') !== (record.name as string).trim().normalize('NFKC')) {
      problems.push(broken('folder-name', 'the folder name must equal the name'));
    }
  }
  const description = descriptionProblem(record.description);
  if (description !== null) problems.push(description);
  if ('compatibility' in record && (typeof record.compatibility !== 'string' || record.compatibility.length > MAX_COMPATIBILITY)) {
    problems.push(broken('compatibility', `compatibility must be a text of at most ${MAX_COMPATIBILITY} characters`));
  }
  return problems;
}

function extraFieldsMessage(extra: readonly string[]): string {
  return `fields ${extra.join(', ')} are not Agent Skills fields (allowed: ${AGENT_SKILL_FIELDS.join(', ')})`;
}

/** A text js-yaml's default schema reads as a date may start so: four digits and a hyphen. */
const MAY_BE_DATE = /^[0-9]{4}-/;

/**
 * What `yaml.load(text)` (js-yaml's default schema, as the validator reads) gives: the flat
 * reader's answer when it has one (it gives what the core schema gives) and none of its texts, at
 * any depth, is one the default schema could read as a date instead — for the one-line scalars,
 * flow lists of words and one level of nesting the fast reader takes, that is the only difference
 * between the two schemas (its other types need a tag or a `<<` key, which the fast reader never
 * accepts) — else js-yaml's own. Nearly every frontmatter is in that shape, and js-yaml's general
 * parser was most of an apply's cost of these rules.
 */
export function validatorFields(text: string): unknown {
  const flat = parseFlatMapping(text);
  if (flat !== null && !holdsDateLikeText(flat)) return flat;
  return yaml.load(text);
}

/** Whether a value the fast reader gave holds a text that may be a date, at any depth. */
function holdsDateLikeText(value: unknown): boolean {
  if (typeof value === 'string') return MAY_BE_DATE.test(value);
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some(holdsDateLikeText);
}

function descriptionProblem(description: unknown): AgentSkillBreak | null {
  if (typeof description !== 'string' || description.trim() === '')
    return { rule: 'description', message: 'description is missing or empty' };
  if (description.length > MAX_AGENT_SKILL_DESCRIPTION)
    return { rule: 'description-length', message: `description is longer than ${MAX_AGENT_SKILL_DESCRIPTION} characters` };
  return null;
}

/** Whether a description keeps the rules ({@link descriptionProblem} finds nothing). */
function isDescription(description: unknown): boolean {
  return typeof description === 'string' && description.length <= MAX_AGENT_SKILL_DESCRIPTION && description.trim() !== '';
}

/** Whether every field of a frontmatter is an Agent Skills field, without making an array. */
function onlyAgentSkillFields(frontmatter: Readonly<Record<string, unknown>>): boolean {
  for (const key in frontmatter) if (!AGENT_SKILL_FIELDS.includes(key)) return false;
  return true;
}

const NO_FINDINGS: readonly Diagnostic[] = Object.freeze([]);

/**
 * The runtimes verified by running them to load a skill that breaks only rules of
 * {@link RUNTIME_TOLERATED_RULES}; a plan names, per runtime, which ones it writes it for.
 */
export const RUNTIMES_LOADING_NOT_PORTABLE = 'Claude Code and Codex';

/**
 * Checks a skill's frontmatter against the Agent Skills rules (see {@link agentSkillNameProblems}).
 * A break is a warning: the skill still loads in Loadout. Extra fields and a long description are
 * `SKILL_NOT_PORTABLE`: real runtimes load them, a strict one may not. Each message starts with the
 * plugin the skill comes from, when it comes from one.
 */
export function checkAgentSkillsRules(
  frontmatter: Readonly<Record<string, unknown>>,
  file: string,
  plugin: string | null = null,
): readonly Diagnostic[] {
  const { name, description } = frontmatter;
  // Nearly every skill keeps the rules: a scan of 10,000 then makes no array for them.
  if (
    typeof name === 'string' &&
    name.length <= MAX_AGENT_SKILL_NAME &&
    ASCII_NAME.test(name) &&
    isDescription(description) &&
    onlyAgentSkillFields(frontmatter)
  )
    return NO_FINDINGS;
  const where = plugin === null ? file : `plugin ${plugin}: ${file}`;
  const findings: Diagnostic[] = [];
  const nameProblems = agentSkillNameProblems(name);
  if (nameProblems.length > 0) {
    findings.push({
      code: 'SKILL_NAME_RULES',
      severity: 'warning',
      path: file,
      message: `${where}: ${nameProblems.join('; ')} (Agent Skills rules: 1-${MAX_AGENT_SKILL_NAME} lower-case letters, digits and single hyphens)`,
    });
  }
  const problem = descriptionProblem(description);
  if (problem?.rule === 'description') {
    findings.push({
      code: 'SKILL_DESCRIPTION_RULES',
      severity: 'warning',
      path: file,
      message: `${where}: description should be 1-${MAX_AGENT_SKILL_DESCRIPTION} characters (Agent Skills rules)`,
    });
  }
  const extra = extraAgentSkillFields(frontmatter);
  const notPortable = [
    ...(extra.length > 0 ? [extraFieldsMessage(extra)] : []),
    ...(problem?.rule === 'description-length' ? [problem.message] : []),
  ];
  if (notPortable.length > 0) {
    findings.push({
      code: 'SKILL_NOT_PORTABLE',
      severity: 'warning',
      path: file,
      message: `${where}: ${notPortable.join('; ')} (Agent Skills rules); ${RUNTIMES_LOADING_NOT_PORTABLE} load it and \`loadout apply\` writes it for them, a runtime that keeps to the rules may not`,
    });
  }
  return findings;
}
