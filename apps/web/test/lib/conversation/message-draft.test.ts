import { FIELD_LIMITS } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { MessageDraft } from '$lib/conversation/message-draft.svelte.js';

describe('MessageDraft', () => {
  it('steers by default and sends nothing blank or too long', () => {
    const draft = new MessageDraft();
    expect(draft.mode).toBe('steer');
    draft.setText('   \n ');
    expect(draft.problem).toBe('empty');
    expect(draft.take()).toBeNull();
    draft.setText('x'.repeat(FIELD_LIMITS.messageMax + 1));
    expect(draft.problem).toBe('too_long');
    expect(draft.take()).toBeNull();
    expect(draft.text).toHaveLength(FIELD_LIMITS.messageMax + 1);
  });

  it('takes the text out of the box, trimmed, and clears the last refusal', () => {
    const draft = new MessageDraft();
    draft.refused('earlier', { code: 'INVALID_STATE', message: 'No.' });
    draft.setText('  Add 10 to that.\n');
    expect(draft.take()).toBe('Add 10 to that.');
    expect(draft.text).toBe('');
    expect(draft.error).toBeNull();
  });

  it('puts a refused message back, before anything typed since, with the server’s reason', () => {
    const draft = new MessageDraft();
    draft.refused('Add 10 to that.', { code: 'INVALID_STATE', message: 'The session is waiting.' });
    expect(draft.text).toBe('Add 10 to that.');
    expect(draft.error).toEqual({ code: 'INVALID_STATE', message: 'The session is waiting.' });

    draft.setText('and then 5');
    draft.refused('Use 25%.', new Error('gone'));
    expect(draft.text).toBe('Use 25%.\n\nand then 5');
    expect(draft.error).toEqual({ code: 'INTERNAL', message: 'gone' });
  });
});
