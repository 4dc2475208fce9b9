import { describe, expect, it } from 'vitest';
import { parseLevelEndArgument, parseTransferRequest } from './TransferRequest.js';

describe('transfer requests', () => {
  it.each([
    ['global', { level: 'global' }],
    ['project:/work/app', { level: 'project', projectPath: '/work/app' }],
    ['project:./rel dir', { level: 'project', projectPath: './rel dir' }],
  ])('reads the end %s', (text, end) => {
    expect(parseLevelEndArgument(text)).toEqual(end);
  });

  it.each(['project', 'project:', 'Global', 'local', ''])('refuses the end "%s" as CAPABILITY_INVALID', (text) => {
    expect(() => parseLevelEndArgument(text)).toThrow(expect.objectContaining({ code: 'CAPABILITY_INVALID' }));
  });

  it.each([
    [
      'a project end without a project path',
      { kind: 'skill', id: 'pdf', from: { level: 'project' }, to: { level: 'global' } },
      'from.projectPath',
    ],
    ['an unknown kind', { kind: 'task', id: 'pdf', from: { level: 'global' }, to: { level: 'global' } }, 'kind'],
    ['an empty id', { kind: 'skill', id: '', from: { level: 'global' }, to: { level: 'global' } }, 'id'],
    ['an unknown level', { kind: 'skill', id: 'pdf', from: { level: 'home' }, to: { level: 'global' } }, 'from.level'],
    ['an extra field', { kind: 'skill', id: 'pdf', from: { level: 'global' }, to: { level: 'global', force: true } }, 'to'],
    [
      'a NUL in a path',
      { kind: 'skill', id: 'pdf', from: { level: 'global' }, to: { level: 'project', projectPath: 'a\0b' } },
      'to.projectPath',
    ],
  ])('refuses %s as CAPABILITY_INVALID, naming where', (_title, input, where) => {
    expect(() => parseTransferRequest(input)).toThrow(
      expect.objectContaining({ code: 'CAPABILITY_INVALID', message: expect.stringContaining(where) }),
    );
  });

  it('keeps a projectPath on a global end: the state context', () => {
    const request = parseTransferRequest({
      kind: 'server',
      id: 'gh',
      from: { level: 'global', projectPath: '/p' },
      to: { level: 'project', projectPath: '/q' },
    });
    expect(request.from).toEqual({ level: 'global', projectPath: '/p' });
  });
});
