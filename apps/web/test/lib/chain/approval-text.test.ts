import { describe, expect, it } from 'vitest';
import { describeDecision, describeRefusal } from '$lib/chain/approval-text.js';
import { I18n } from '$lib/i18n/index.js';

const isOwn = (by: string | undefined) => by === 'c_me';
const at = new Date(2025, 0, 1, 12, 3).toISOString();
const now = new Date(2025, 0, 1, 12, 30).getTime();

describe('describeDecision', () => {
  it('says who decided what and when, in both languages', () => {
    const en = new I18n({ languages: ['en-US'] });
    expect(describeDecision(en, { state: 'approved', by: 'c_me', at }, isOwn, now)).toEqual({ line: 'Approved by you · 12:03 PM', reason: undefined });
    expect(describeDecision(en, { state: 'edited', by: 'c_other', at }, isOwn, now)?.line).toBe('Edited by someone else before it ran · 12:03 PM');
    expect(describeDecision(en, { state: 'rejected', by: 'c_other', at, reason: 'No.' }, isOwn, now)).toEqual({ line: 'Rejected by someone else · 12:03 PM', reason: 'No.' });
    const zh = new I18n({ languages: ['zh-CN'] });
    expect(describeDecision(zh, { state: 'approved', by: 'c_me', at }, isOwn, now)?.line).toBe('由你批准 · 12:03');
    expect(describeDecision(zh, { state: 'rejected', by: 'c_other', at }, isOwn, now)?.line).toBe('由其他人拒绝 · 12:03');
    expect(describeDecision(zh, { state: 'approved', by: 'share:sh_1', at }, isOwn, now)?.line).toBe('由持分享链接的人批准 · 12:03');
    expect(describeDecision(en, { state: 'approved', by: 'share:sh_1', at }, isOwn, now)?.line).toBe('Approved by someone with a share link · 12:03 PM');
  });

  it('tells a timeout from another rejection by the server', () => {
    const en = new I18n({ languages: ['en-US'] });
    expect(describeDecision(en, { state: 'rejected', by: 'server', at, reason: 'timed out' }, isOwn, now)).toEqual({ line: 'Rejected: timed out · 12:03 PM', reason: undefined });
    expect(describeDecision(en, { state: 'rejected', by: 'server', at, reason: 'policy' }, isOwn, now)).toEqual({ line: 'Rejected by the server · 12:03 PM', reason: 'policy' });
  });

  it('says nothing of a call still pending', () => {
    expect(describeDecision(new I18n(), { state: 'pending', requestedAt: at }, isOwn, now)).toBeUndefined();
  });
});

describe('describeRefusal', () => {
  it('says the tool did not run, who refused it and why', () => {
    const en = new I18n({ languages: ['en-US'] });
    expect(describeRefusal(en, { refused: true, by: 'c_me', reason: 'No.' }, 'calculator', isOwn)).toEqual({ line: 'You rejected this call, so calculator did not run.', reason: 'No.' });
    expect(describeRefusal(en, { refused: true, by: 'c_other' }, 'calculator', isOwn).line).toBe('Someone else rejected this call, so calculator did not run.');
    expect(describeRefusal(en, { refused: true, by: 'share:sh_1' }, 'calculator', isOwn).line).toBe('Someone with a share link rejected this call, so calculator did not run.');
    expect(describeRefusal(en, { refused: true, by: 'server', reason: 'timed out' }, undefined, isOwn)).toEqual({ line: 'Nobody decided in time, so the tool did not run.', reason: undefined });
    const zh = new I18n({ languages: ['zh-CN'] });
    expect(describeRefusal(zh, { refused: true, by: 'c_other' }, 'calculator', isOwn).line).toBe('其他人拒绝了这次调用，calculator 没有运行。');
  });
});
