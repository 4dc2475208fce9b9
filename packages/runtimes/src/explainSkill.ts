import { splitQualifiedId } from '@loadout/kernel';
import type { DocumentSeen } from './documents/planDocuments.js';
import type { SameNameRule } from './RuntimeAdapter.js';
import type { RuntimePlan, RuntimeStatus, SkillCopyReport } from './RuntimePlan.js';
import type { SkillCopy } from './RuntimeView.js';
import { skillNameKey } from './skillNames.js';

/** One copy of the name, as `loadout why` shows it. */
export interface WhyCopy extends SkillCopyReport {
  /** Whether the runtime loads it; `refusal` says why not. */
  readonly loaded: boolean;
  readonly refusal: string | null;
  readonly hash: string | null;
  /** Whether this is the copy the runtime uses. */
  readonly wins: boolean;
}

/** What one runtime would see of the name. */
export interface RuntimeWhy {
  readonly runtime: string;
  readonly verified: boolean;
  readonly status: RuntimeStatus;
  readonly sameName: SameNameRule;
  /** Every copy, in the runtime's precedence order, refused ones included. */
  readonly copies: readonly WhyCopy[];
  /** Loadout's copies of the name this runtime does not get (refused, not portable, a name another plugin takes), with why. */
  readonly skipped: readonly { readonly source: string | null; readonly reason: string }[];
  /** How the plugins behind these copies reach the runtime (`in place`, `copied: why`); absent where it cannot read plugins in place. */
  readonly plugins?: readonly { readonly plugin: string; readonly reason: string }[];
  /** Loadout's agents, commands and hooks of the name it loads: brought by a plugin it reads in place, or Loadout's copies. */
  readonly documents: readonly DocumentSeen[];
  readonly reason: string;
}

/** `loadout why NAME`: for each runtime, every copy of one skill name it would see, and which wins. */
export interface WhyReport {
  readonly name: string;
  readonly project: string | null;
  readonly runtimes: readonly RuntimeWhy[];
}

/**
 * Explains one name across the plan's runtimes: the copies each would find once the plan ran (its
 * built-in, managed, user and Loadout copies), which one it uses under its same-name rule, and why.
 * `name` is matched as a runtime would list it, or as the Loadout capability id behind a copy.
 */
export function explainSkill(plan: RuntimePlan, name: string): WhyReport {
  // A qualified name (`discord:access`): the runtime lists the skill by its own name.
  const qualified = splitQualifiedId(name);
  const listed = qualified === null ? name : qualified.id;
  const key = skillNameKey(listed);
  return {
    name,
    project: plan.project === null ? null : '<project>',
    runtimes: plan.parts.map((part) => {
      const copies = part.view.filter((copy) => copy.key === key || copy.sourceId === listed);
      const loaded = copies.filter((copy) => copy.loaded && copy.state !== 'held');
      const winner = winnerOf(part.adapter.sameName, loaded);
      const skipped = part.skips
        .filter((skip) => skillNameKey(skip.name) === key)
        .map((skip) => ({ source: skip.source, reason: skip.reason }));
      const behind = new Set(copies.flatMap((copy) => (copy.plugin === null ? [] : [copy.plugin])));
      const documents = (part.documents?.sees ?? []).filter((seen) => documentNamed(seen, name, listed));
      const plugins = part.plugins?.placements
        .filter((placement) => behind.has(placement.plugin))
        .map((placement) => ({ plugin: placement.plugin, reason: placement.reason }));
      return {
        runtime: part.adapter.name,
        verified: part.adapter.verified,
        status: part.status,
        sameName: part.adapter.sameName,
        copies: copies.map((copy) => ({
          ...plan.reportCopy(copy),
          loaded: copy.loaded,
          refusal: copy.refusal,
          hash: copy.hash() === null ? null : `sha256:${(copy.hash() as string).slice(0, 12)}`,
          wins: copy === winner,
        })),
        skipped,
        ...(plugins === undefined ? {} : { plugins }),
        documents,
        reason: `${reasonFor(part.adapter.name, part.adapter.sameName, copies, loaded)}${skipped.map((skip) => `; Loadout's copy from ${skip.source ?? 'Loadout'} is skipped: ${skip.reason}`).join('')}${(plugins ?? []).map((placement) => `; plugin ${placement.plugin}: ${placement.reason}`).join('')}${documents.map((seen) => `; it loads ${seen.kind} ${seen.name} ${seen.state === 'in-place' ? `from plugin ${seen.plugin ?? ''}, read in place` : "from Loadout's copy"}`).join('')}`,
      };
    }),
  };
}

/** Whether `seen` is listed as `name` (`kit:reviewer`), or as `<plugin>:<listed>` when a bare name was asked. */
function documentNamed(seen: DocumentSeen, name: string, listed: string): boolean {
  const shown = seen.name.toLowerCase();
  return shown === name.toLowerCase() || (name === listed && shown.endsWith(`:${listed.toLowerCase()}`));
}

function winnerOf(rule: SameNameRule, loaded: readonly SkillCopy[]): SkillCopy | null {
  if (loaded.length === 1) return loaded[0] as SkillCopy;
  if (rule === 'first-wins' || rule === 'listed-first-runs') return loaded[0] ?? null;
  return null;
}

function reasonFor(runtime: string, rule: SameNameRule, copies: readonly SkillCopy[], loaded: readonly SkillCopy[]): string {
  const held = copies.some((copy) => copy.state === 'held')
    ? `; Loadout's copy is held back: ${runtime} would see two bundles of one name`
    : '';
  return `${seenReason(runtime, rule, loaded, copies.filter((copy) => !copy.loaded).length)}${held}`;
}

function seenReason(runtime: string, rule: SameNameRule, loaded: readonly SkillCopy[], refused: number): string {
  const also = refused === 0 ? '' : `; it refuses ${refused} other ${refused === 1 ? 'copy' : 'copies'}`;
  if (loaded.length === 0) return `${runtime} finds no copy it loads${also}`;
  if (loaded.length === 1) return `${runtime} loads one copy${also}`;
  const bundles = new Set(loaded.map((copy, index) => copy.hash() ?? `unknown-${index}`)).size;
  const differ = bundles > 1 ? `, ${bundles} different bundles` : ', all identical';
  const rules: Record<SameNameRule, string> = {
    'first-wins': `${runtime} uses the first by precedence and hides the other ${loaded.length - 1}${differ}${also}`,
    'listed-first-runs': `${runtime} lists all ${loaded.length} copies${differ}; invoking the name runs the first by precedence${also}`,
    'all-listed': `${runtime} lists all ${loaded.length} copies${differ} and prefers none: the agent sees the name ${loaded.length} times${also}`,
    unverified: `how ${runtime} ranks ${loaded.length} copies of one name is not verified${differ}${also}`,
  };
  return rules[rule];
}
