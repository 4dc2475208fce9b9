import type { Diagnostic } from './Diagnostic.js';
import type { Session } from './Session.js';
import { token } from './token.js';

/**
 * A piece of text a session hands an agent, e.g. the skills block. Rendered once when the session
 * opens and listed in the session under `key`.
 *
 * @example
 * container.register(SessionSections, { useValue: { key: 'skillsBlock', render: (s) => skillsBlock(s) } });
 */
export interface SessionSection {
  readonly key: string;
  render(session: Session): { text: string; diagnostics: readonly Diagnostic[] };
}
export const SessionSections = token<SessionSection>('kernel.sessionSections');
