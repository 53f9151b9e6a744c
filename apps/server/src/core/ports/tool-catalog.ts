import type { AgentTool, AgentToolbox } from '@interthought/agent';

/** A tool as the core sees it: what agents use, and whether it only reads or changes something (which approvals read). */
export interface CatalogTool extends AgentTool {
  readonly effect: 'read' | 'change';
}

/** The server's tools (a port of the core): runs hand it to agents, corrections check tool input, approvals read effects. */
export interface ToolCatalog extends AgentToolbox {
  get(name: string): CatalogTool | undefined;
  list(): readonly CatalogTool[];
}
