import { describe, expect, it } from 'vitest';
import { tabTitle } from '$lib/app/tab-title.js';
import { I18n } from '$lib/i18n/index.js';

const open = { sessionId: 's1', task: 'What is 15% of 240?', status: 'running' as const };

describe('tabTitle', () => {
  it('names the open session, then the app', () => {
    expect(tabTitle(new I18n({ languages: ['en'] }), { open, listed: [open] })).toBe('What is 15% of 240? · Interthought');
    expect(tabTitle(new I18n({ languages: ['en'] }), { listed: [] })).toBe('Interthought');
  });

  it('says first that the open session waits for the user', () => {
    const waiting = { ...open, status: 'waiting' as const };
    expect(tabTitle(new I18n({ languages: ['en'] }), { open: waiting, listed: [waiting] })).toBe('⏸ Waiting for you · What is 15% of 240?');
    expect(tabTitle(new I18n({ languages: ['zh'] }), { open: waiting, listed: [waiting] })).toBe('⏸ 等待你的决定 · What is 15% of 240?');
  });

  it('does not tell a viewer a session waits for them: they cannot decide', () => {
    const waiting = { ...open, status: 'waiting' as const };
    expect(tabTitle(new I18n({ languages: ['en'] }), { open: waiting, listed: [waiting], decides: false })).toBe('What is 15% of 240? · Interthought');
  });

  it('counts the other listed sessions that wait', () => {
    const listed = [open, { sessionId: 's2', status: 'waiting' as const }, { sessionId: 's3', status: 'waiting' as const }, { sessionId: 's4', status: 'completed' as const }];
    expect(tabTitle(new I18n({ languages: ['en'] }), { open, listed })).toBe('⏸ 2 sessions wait for you · What is 15% of 240? · Interthought');
    expect(tabTitle(new I18n({ languages: ['en'] }), { listed: listed.slice(0, 2) })).toBe('⏸ 1 session waits for you · Interthought');
    expect(tabTitle(new I18n({ languages: ['zh'] }), { listed })).toBe('⏸ 2 个会话在等你决定 · Interthought');
  });
});
