export { UsageHookConsent } from './UsageHookConsent.js';
export { USAGE_HOOK_EVENTS, USAGE_HOOK_ID, usageHookCommand, usageHookProgram } from './usageHookEntry.js';
