import { describe, expect, it } from 'vitest';
import { askUserTool } from '../../src/tools/ask-user.js';
import { ToolError } from '../../src/tools/tool.js';
import { createDefaultTools } from '../../src/tools/index.js';

describe('ask_user', () => {
  it('only reads: no approval policy makes it wait by default', () => {
    expect(askUserTool.effect).toBe('read');
  });

  it('checks its input like any tool: a question of 1 to 2,000 characters, up to 10 distinct choices', () => {
    const tools = createDefaultTools();
    expect(tools.checkInput('ask_user', '{"question":"Which one?","choices":["20","5"]}')).toEqual({ ok: true, input: { question: 'Which one?', choices: ['20', '5'] } });
    expect(tools.checkInput('ask_user', '{"question":"Which one?"}').ok).toBe(true);
    expect(tools.checkInput('ask_user', '{"question":""}').ok).toBe(false);
    expect(tools.checkInput('ask_user', JSON.stringify({ question: 'q'.repeat(2_001) })).ok).toBe(false);
    expect(tools.checkInput('ask_user', '{"question":"Which?","choices":["a","a"]}').ok).toBe(false);
    expect(tools.checkInput('ask_user', JSON.stringify({ question: 'Which?', choices: Array.from({ length: 11 }, (_, index) => `c${index}`) })).ok).toBe(false);
    expect(tools.checkInput('ask_user', '{"question":"Which?","extra":1}').ok).toBe(false);
    expect(tools.checkInput('ask_user', 'not json').ok).toBe(false);
  });

  it('refuses to run, saying the server answers it: a valid call never reaches its execute', async () => {
    const running = askUserTool.execute({ question: 'Which one?' }, new AbortController().signal);
    await expect(running).rejects.toBeInstanceOf(ToolError);
    await expect(running).rejects.toThrow(/not run by the agent: the server stops the run at the call/);
  });
});
