import path from 'node:path';
import type { Diagnostic, InlineDocument } from '@loadout/kernel';

/** Where a plugin's MCP servers run from: its real root and its own data folder. */
export interface PluginPlaces {
  /** The plugin's name, for messages. */
  readonly plugin: string;
  /** Absolute path of the plugin's root as the session lists it. */
  readonly root: string;
  /** The root's real path: what `PLUGIN_ROOT` is. */
  readonly realRoot: string;
  /** `<dataDir>/plugin-data/<plugin>`: what `PLUGIN_DATA` is, kept across updates. */
  readonly data: string;
}

/** The servers a manifest gave, as inline server documents, with what was skipped and why. */
export interface PluginServers {
  readonly documents: readonly InlineDocument[];
  readonly diagnostics: readonly Diagnostic[];
}

/** A stdio server definition in the format of `servers/<id>.json`. */
export interface StdioServerDocument {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
}

/** A remote (Streamable HTTP) server definition in the format of `servers/<id>.json`. */
export interface RemoteServerDocument {
  readonly name: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Collects one manifest file's server documents and findings. */
export class ServerCollector {
  readonly documents: InlineDocument[] = [];
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    private readonly places: PluginPlaces,
    /** Absolute path of the file that declares the servers. */
    private readonly file: string,
  ) {}

  get relativeFile(): string {
    return path.relative(this.places.root, this.file) || path.basename(this.file);
  }

  add(server: string, definition: StdioServerDocument | RemoteServerDocument): void {
    this.documents.push({ name: `${server}.json`, path: this.file, content: definition });
  }

  /** One server entry is left out; the others load. */
  skip(server: string, reason: string): void {
    this.diagnostics.push({
      code: 'PLUGIN_SERVER_SKIPPED',
      severity: 'warning',
      path: this.file,
      message: `plugin ${this.places.plugin}: MCP server "${server.slice(0, 80)}" in ${this.relativeFile} is skipped: ${reason}`,
    });
  }

  /** The whole file is left out; the plugin's other parts load. */
  disable(reason: string): void {
    this.diagnostics.push({
      code: 'PLUGIN_MCP_DISABLED',
      severity: 'warning',
      path: this.file,
      message: `plugin ${this.places.plugin}: no MCP server is loaded from ${this.relativeFile}: ${reason}`,
    });
  }

  result(): PluginServers {
    return { documents: this.documents, diagnostics: this.diagnostics };
  }
}
