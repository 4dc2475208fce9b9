import { describe, expect, it } from 'vitest';
import { parsePluginName } from './parsePluginName.js';

describe('parsePluginName', () => {
  it.each(['a', 'pdf-tools', '0day', 'x'.repeat(64), 'a-', 'acme.tools', 'a.-b'])('accepts %s', (name) => {
    expect(parsePluginName(name, '--name')).toBe(name);
  });

  it.each(['', '..', '../x', 'a/b', 'Upper', 'pdf_tools', 'pdf..tools', 'tools.', '-x', 'x'.repeat(65), ' a', 'a\n', 'ä', '.hidden'])(
    'refuses %j with a coded error naming where it came from',
    (name) => {
      expect(() => parsePluginName(name, 'plugin.json')).toThrow(
        expect.objectContaining({ code: 'PLUGIN_NAME_INVALID', message: expect.stringContaining('from plugin.json') }),
      );
    },
  );

  it('refuses a name that is not a string', () => {
    expect(() => parsePluginName(42, 'plugin.json')).toThrow(expect.objectContaining({ code: 'PLUGIN_NAME_INVALID' }));
  });
});
