import { describe, expect, it } from 'vitest';
import { OBSERVATION_TEXT_MAX, toolResultOf } from '../../../src/tools/mcp/call-result.js';
import { ToolError } from '../../../src/tools/tool.js';

describe('toolResultOf', () => {
  it('joins text blocks and names the others; binary data never reaches the output', () => {
    const result = toolResultOf({
      content: [
        { type: 'text', text: 'Here is the chart.' },
        { type: 'image', mimeType: 'image/png', data: 'AAAAAAAA' },
        { type: 'resource_link', name: 'report', uri: 'file:///srv/report.pdf' },
        { type: 'resource', resource: { uri: 'file:///srv/a.txt', text: 'alpha' } },
        { type: 'resource', resource: { uri: 'file:///srv/b.bin', mimeType: 'application/octet-stream', blob: 'AAAA' } },
      ],
    });
    expect(result.text).toBe(
      'Here is the chart.\n[image image/png, 6 bytes]\n[resource report: file:///srv/report.pdf]\nalpha\n[resource file:///srv/b.bin (application/octet-stream), 3 bytes]',
    );
    expect(JSON.stringify(result.output)).not.toContain('AAAA');
    expect(result.output).toMatchObject({ content: [{ type: 'text' }, { type: 'image', mimeType: 'image/png', bytes: 6 }, {}, {}, { resource: { bytes: 3 } }] });
  });

  it('shows structured content as JSON when there is no text', () => {
    expect(toolResultOf({ content: [], structuredContent: { temperature: 21 } })).toEqual({ text: '{"temperature":21}', output: { temperature: 21 } });
    expect(toolResultOf({ content: [] }).text).toBe('The tool returned nothing.');
  });

  it('cuts a long text so the observation stays correctable', () => {
    const { text } = toolResultOf({ content: [{ type: 'text', text: 'x'.repeat(OBSERVATION_TEXT_MAX + 5) }] });
    expect(text).toBe(`${'x'.repeat(OBSERVATION_TEXT_MAX)}\n… (5 more characters not shown)`);
  });

  it("throws a ToolError with the server's text for isError", () => {
    expect(() => toolResultOf({ content: [{ type: 'text', text: 'No such file.' }], isError: true })).toThrow(new ToolError('No such file.'));
    expect(() => toolResultOf({ content: [], isError: true })).toThrow('The tool failed without saying why.');
  });
});
