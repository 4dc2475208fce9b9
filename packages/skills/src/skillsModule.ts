import { CapabilityKinds, contribute, type LoadoutModule, SessionSections } from '@loadout/kernel';
import { skillKind } from './skillKind.js';

/** Characters the skills block may take in an agent's context. */
export const SKILLS_BLOCK_BUDGET = 12_000;

/** Registers the skill kind and the session's `skillsBlock`. */
export const skillsModule: LoadoutModule = {
  name: 'skills',
  now: (container) => {
    contribute(container, CapabilityKinds, skillKind);
    contribute(container, SessionSections, {
      key: 'skillsBlock',
      render: (session) => session.renderBlock('Skills', session.recordsOf('skill'), SKILLS_BLOCK_BUDGET),
    });
  },
};
