import { token } from './token.js';

/**
 * Something a session depends on besides the files under its roots (the database's rows: plugins,
 * switches), summed up in a cheap string that moves whenever it changes. A long-running process
 * keeps what it derived from a session (a serialized answer, an MCP listing) while every stamp
 * and the watch cache's generation stay the same ({@link SessionLoader.changeStamp}).
 *
 * @example
 * contribute(container, ChangeStamps, { name: 'database', current: () => resolve(container, SqlDatabase).sessionStamp() });
 */
export interface ChangeStamp {
  readonly name: string;
  current(): string;
}
export const ChangeStamps = token<ChangeStamp>('kernel.changeStamps');
