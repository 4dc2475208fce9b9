import { describe, expect, it } from 'vitest';
import { expandPlaceholders } from './expandPlaceholders.js';

describe('expandPlaceholders', () => {
  const values = { PLUGIN_ROOT: '/plugins/p', PLUGIN_DATA: '/data/${PLUGIN_ROOT}' };

  it.each([
    ['${PLUGIN_ROOT}/bin/x', '/plugins/p/bin/x'],
    ['--a=${PLUGIN_ROOT} --b=${PLUGIN_ROOT}', '--a=/plugins/p --b=/plugins/p'],
    // Inserted text is never scanned again.
    ['${PLUGIN_DATA}', '/data/${PLUGIN_ROOT}'],
    ['${HOME}/x', '${HOME}/x'],
    ['$PLUGIN_ROOT', '$PLUGIN_ROOT'],
    ['${PLUGIN_ROOT:-x}', '${PLUGIN_ROOT:-x}'],
    ['${plugin_root}', '${plugin_root}'],
    ['${toString}', '${toString}'],
  ])('%s → %s', (text, expected) => {
    expect(expandPlaceholders(text, values)).toBe(expected);
  });
});
