import { z } from 'zod';
import { ToolError, type Tool } from '../../../../src/tools/tool.js';
import { ToolRegistry } from '../../../../src/tools/tool-registry.js';

export interface ToolInvocation {
  tool: string;
  input: unknown;
}

/** A registry with two small tools (`add`, `capital`) that records every invocation. */
export function createTestTools(): { tools: ToolRegistry; invocations: ToolInvocation[] } {
  const invocations: ToolInvocation[] = [];
  const add: Tool<{ a: number; b: number }> = {
    name: 'add',
    description: 'Add two numbers.',
    effect: 'read',
    inputSchema: z.object({ a: z.number().describe('The first addend'), b: z.number() }),
    async execute(input) {
      invocations.push({ tool: 'add', input });
      const sum = input.a + input.b;
      return { output: { sum }, text: `${input.a} + ${input.b} = ${sum}` };
    },
  };
  const capitals: Record<string, string> = { France: 'Paris', Japan: 'Tokyo' };
  const capital: Tool<{ country: string }> = {
    name: 'capital',
    description: 'The capital city of a country.',
    effect: 'read',
    inputSchema: z.object({ country: z.string().min(1) }),
    async execute(input) {
      invocations.push({ tool: 'capital', input });
      const city = capitals[input.country];
      if (city === undefined) throw new ToolError(`No capital known for ${input.country}.`);
      return { output: { city }, text: city };
    },
  };
  return { tools: new ToolRegistry().register(add).register(capital), invocations };
}
