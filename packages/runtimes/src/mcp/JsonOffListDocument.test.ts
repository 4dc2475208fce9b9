import { describe, expect, it } from 'vitest';
import { JsonOffListDocument, OFF_MARK } from './JsonOffListDocument.js';
import { McpConfigLayoutError, McpConfigUnreadableError } from './McpConfigDocument.js';

const PROJECT = '/home/me/work/app';
const claudeList = (text: string | null) => new JsonOffListDocument(text, ['projects', PROJECT, 'disabledMcpServers'], '~/.claude.json');
const geminiList = (text: string | null, trailingCommas = false) =>
  new JsonOffListDocument(text, ['mcp', 'excluded'], '.gemini/settings.json', trailingCommas);

/** Claude Code's global file as it leaves it: the project's entry holds settings of its own. */
const CLAUDE_JSON = `{
  "numStartups": 4,
  "mcpServers": {
    "mine": { "type": "stdio", "command": "node", "args": [] }
  },
  "projects": {
    "${PROJECT}": {
      "allowedTools": [],
      "hasTrustDialogAccepted": true
    },
    "/somewhere/else": {
      "disabledMcpServers": ["other"]
    }
  }
}
`;

describe('a list of servers left off (JSON)', () => {
  it("adds names to a project's list it makes, reads them as marks, and takes them away byte for byte", () => {
    const document = claudeList(CLAUDE_JSON);
    expect(document.hasContainer()).toBe(false);
    expect([...document.servers()]).toEqual([]);
    document.applyEdits([
      { name: 'fs', value: OFF_MARK },
      { name: 'docs', value: OFF_MARK },
    ]);
    const added = document.text();
    expect(JSON.parse(added).projects[PROJECT]).toEqual({
      allowedTools: [],
      hasTrustDialogAccepted: true,
      disabledMcpServers: ['fs', 'docs'],
    });
    expect(JSON.parse(added).projects['/somewhere/else']).toEqual({ disabledMcpServers: ['other'] });
    expect(claudeList(added).servers()).toEqual(
      new Map([
        ['fs', OFF_MARK],
        ['docs', OFF_MARK],
      ]),
    );
    // Only the project's entry changed, laid out in the file's indentation.
    expect(added.startsWith(CLAUDE_JSON.slice(0, CLAUDE_JSON.indexOf('"hasTrustDialogAccepted": true')))).toBe(true);
    expect(added).toContain(
      '"hasTrustDialogAccepted": true,\n      "disabledMcpServers": [\n        "fs",\n        "docs"\n      ]\n    },',
    );

    const again = claudeList(added);
    again.remove('fs');
    again.remove('docs');
    again.removeEmptyContainer();
    expect(again.text()).toBe(CLAUDE_JSON);
  });

  it("appends to the user's own list and leaves the user's names and comments where they stand", () => {
    const own = '{\n  // mine\n  "mcp": { "excluded": ["mine"], "allowed": ["*"] },\n  "ui": { "theme": "Default" }\n}\n';
    const document = geminiList(own);
    document.set('fs', OFF_MARK);
    expect([...document.servers().keys()]).toEqual(['mine', 'fs']);
    expect(document.text()).toContain('// mine');
    document.remove('fs');
    document.removeEmptyContainer();
    expect(document.text()).toBe(own);
  });

  it("lays a name added to a list of the user's on several lines out as its lines", () => {
    const own = CLAUDE_JSON.replace(
      '"hasTrustDialogAccepted": true',
      '"hasTrustDialogAccepted": true,\n      "disabledMcpServers": [\n        "mine"\n      ]',
    );
    const document = claudeList(own);
    document.set('fs', OFF_MARK);
    expect(document.text()).toContain('"disabledMcpServers": [\n        "mine",\n        "fs"\n      ]');
    document.remove('fs');
    document.removeEmptyContainer();
    expect(document.text()).toBe(own);
  });

  it('makes a file that did not exist, and empties it again', () => {
    const document = geminiList(null);
    document.set('fs', OFF_MARK);
    expect(JSON.parse(document.text())).toEqual({ mcp: { excluded: ['fs'] } });
    document.remove('fs');
    document.removeEmptyContainer();
    expect(document.isEmpty()).toBe(true);
  });

  it('refuses a list that is something else, a value that is not a mark, and text that is not JSON', () => {
    const odd = geminiList('{ "mcp": { "excluded": "fs" } }');
    expect(odd.servers().size).toBe(0);
    expect(() => odd.set('docs', OFF_MARK)).toThrow(McpConfigLayoutError);
    expect(odd.text()).toBe('{ "mcp": { "excluded": "fs" } }');
    expect(() => geminiList('{ "mcp": [] }').set('docs', OFF_MARK)).toThrow(McpConfigLayoutError);
    expect(() => geminiList('{}').set('docs', { command: 'node' })).toThrow(McpConfigLayoutError);
    expect(() => geminiList('{ "mcp": { "excluded": ["a",] } }')).toThrow(McpConfigUnreadableError);
    expect(geminiList('{ "mcp": { "excluded": ["a",] } }', true).servers().has('a')).toBe(true);
  });
});
