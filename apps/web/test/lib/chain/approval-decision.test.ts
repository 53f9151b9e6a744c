import { describe, expect, it } from 'vitest';
import { ApprovalDecision } from '$lib/chain/approval-decision.svelte.js';

describe('ApprovalDecision', () => {
  it('sends one decision at a time and is free again once it is answered', async () => {
    const decision = new ApprovalDecision();
    let answer!: () => void;
    const sent = decision.send('approve', () => new Promise<void>((resolve) => (answer = resolve)));
    expect(decision.sending).toBe('approve');
    expect(await decision.send('reject', async () => undefined)).toBe(false);
    answer();
    expect(await sent).toBe(true);
    expect(decision.sending).toBeNull();
  });

  it('keeps the reason and the open field when the rejection is refused, and clears them once it is sent', async () => {
    const decision = new ApprovalDecision();
    decision.openReject();
    decision.setReason('  Not on production data.  ');
    expect(decision.reasonToSend).toBe('Not on production data.');
    await expect(decision.send('reject', () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(decision.rejecting).toBe(true);
    expect(decision.reason).toBe('  Not on production data.  ');
    expect(decision.sending).toBeNull();

    await decision.send('reject', async () => undefined);
    expect(decision.rejecting).toBe(false);
    expect(decision.reason).toBe('');
  });

  it('sends no reason for a blank one, and never more than the protocol takes', () => {
    const decision = new ApprovalDecision();
    decision.setReason('   ');
    expect(decision.reasonToSend).toBeUndefined();
    decision.setReason('x'.repeat(5000));
    expect(decision.reasonToSend).toHaveLength(2000);
  });

  it('does not close the reason field while the rejection is on its way', () => {
    const decision = new ApprovalDecision();
    decision.openReject();
    void decision.send('reject', () => new Promise<void>(() => undefined));
    decision.closeReject();
    expect(decision.rejecting).toBe(true);
  });
});
