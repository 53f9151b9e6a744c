import { FIELD_LIMITS } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { CorrectionDraft, formatToolInput } from '$lib/chain/correction-draft.svelte.js';

describe('CorrectionDraft', () => {
  it('opens a tool call as indented JSON and sends it compact', () => {
    const draft = new CorrectionDraft('tool_call', '{"expression":"180 / 2.5"}');
    expect(draft.text).toBe('{\n  "expression": "180 / 2.5"\n}');
    draft.setText('{ "expression" : "180 / 3" }');
    expect(draft.check()).toEqual({ ok: true, content: '{"expression":"180 / 3"}' });
  });

  it('reports the JSON parse error of broken tool input', () => {
    const draft = new CorrectionDraft('tool_call', '{"expression":"1"}');
    draft.setText('{"expression": ');
    const check = draft.check();
    expect(check.ok).toBe(false);
    expect(!check.ok && check.reason).toBe('invalid_json');
    expect(!check.ok && check.detail).toMatch(/JSON/);
  });

  it('sends prose exactly as typed, refusing only empty or over-long text', () => {
    const draft = new CorrectionDraft('thought', 'old');
    draft.setText('  keep my spacing  ');
    expect(draft.check()).toEqual({ ok: true, content: '  keep my spacing  ' });
    draft.setText(' \n ');
    expect(draft.check()).toEqual({ ok: false, reason: 'empty' });
    draft.setText('x'.repeat(FIELD_LIMITS.correctionMax + 1));
    expect(draft.check()).toEqual({ ok: false, reason: 'too_long' });
  });

  it('sends a note only when one was written', () => {
    const draft = new CorrectionDraft('action', 'a');
    expect(draft.noteToSend).toBeUndefined();
    draft.setNote('   ');
    expect(draft.noteToSend).toBeUndefined();
    draft.setNote('  because  ');
    expect(draft.noteToSend).toBe('because');
  });

  it('leaves text that is not JSON as it is when formatting tool input', () => {
    expect(formatToolInput('not json')).toBe('not json');
  });
});
