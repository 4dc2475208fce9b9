// What to do about a refusal, by its code: the one table the command line adds fixes from, so
// that every error it prints says its next step. A code missing here prints its message alone.
const FIXES: Readonly<Record<string, string>> = {
  USAGE: 'add --help to the command to see what it takes',
  TASK_NOT_FOUND: '`loadout tasks list` shows the tasks of this session',
  PLUGIN_NOT_FOUND: '`loadout plugins list` shows the installed plugins',
  MARKETPLACE_NOT_FOUND: '`loadout marketplace list` shows the added marketplaces',
  MARKETPLACE_PLUGIN_NOT_FOUND: '`loadout plugins search WORDS` searches every marketplace',
  SKILL_NOT_FOUND: '`loadout skills list` shows the skills of this session',
  JOB_NOT_FOUND: '`loadout jobs list` shows the kept jobs',
  PROJECT_NOT_FOUND: 'give --project a folder that exists',
  CAPABILITY_UNTRUSTED: '`loadout audit` shows what is held and why; `loadout plugins approve NAME` or `loadout trust PROJECT` lifts it',
  TASK_INPUT_INVALID: '`loadout tasks show DIR` shows the input the task declares',
};

/** The next step for an error with this code, or null when the message says all there is. */
export function fixFor(code: string): string | null {
  return FIXES[code] ?? null;
}
