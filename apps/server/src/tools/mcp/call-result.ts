import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { FIELD_LIMITS } from '@interthought/protocol';
import { ToolError, type ToolResult } from '../tool.js';

/**
 * Longest observation text kept: as long as a correction may be, so the user can still correct the
 * observation, and a page-sized tool result does not stream for minutes.
 */
export const OBSERVATION_TEXT_MAX = FIELD_LIMITS.correctionMax;

/** A content block as the step's `result` keeps it: binary data is summarised, never stored in the log. */
function keptBlock(block: ContentBlock): unknown {
  switch (block.type) {
    case 'image':
    case 'audio':
      return { type: block.type, mimeType: block.mimeType, bytes: base64Bytes(block.data) };
    case 'resource':
      if ('blob' in block.resource) {
        const { blob, ...resource } = block.resource;
        return { type: 'resource', resource: { ...resource, bytes: base64Bytes(blob) } };
      }
      return block;
    default:
      return block;
  }
}

function base64Bytes(data: string): number {
  return Math.floor((data.replace(/=+$/, '').length * 3) / 4);
}

/** What a block reads as in the observation (and so to a model): text as it is, anything else named. */
function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'resource_link':
      return `[resource ${block.name}: ${block.uri}]`;
    case 'resource':
      if ('text' in block.resource) return block.resource.text;
      return `[resource ${block.resource.uri}${block.resource.mimeType ? ` (${block.resource.mimeType})` : ''}, ${base64Bytes(block.resource.blob)} bytes]`;
    default:
      return '';
  }
}

function capped(text: string): string {
  if (text.length <= OBSERVATION_TEXT_MAX) return text;
  const cut = text.length - OBSERVATION_TEXT_MAX;
  return `${text.slice(0, OBSERVATION_TEXT_MAX)}\n… (${cut} more characters not shown)`;
}

/**
 * An MCP `tools/call` result as a `ToolResult`: the text blocks (others named) as the observation's
 * text, the structured content (or the content blocks) as its output. A result marked `isError`
 * throws a `ToolError` with the server's text, which the observation shows.
 */
export function toolResultOf(result: CallToolResult): ToolResult {
  const content = result.content ?? [];
  const text = content.map(blockText).filter((part) => part !== '').join('\n');
  const structured = result.structuredContent;
  if (result.isError) throw new ToolError(capped(text) || 'The tool failed without saying why.');
  const shown = text !== '' ? text : structured !== undefined ? JSON.stringify(structured) : 'The tool returned nothing.';
  return { output: structured ?? { content: content.map(keptBlock) }, text: capped(shown) };
}
