import { describe, expect, it } from 'vitest';
import { SendWindow } from '../src/worker/send-window.js';

function windowOf(limit: number) {
  const probes: string[] = [];
  let opened = 0;
  const window = new SendWindow(limit, (data) => probes.push(data), () => (opened += 1));
  const send = (n: number) => {
    for (let i = 0; i < n; i += 1) window.sent();
  };
  return { window, probes, send, opened: () => opened };
}

describe('SendWindow', () => {
  it('probes every quarter of its limit with the frames sent so far, and closes at the limit until a pong says they were read', () => {
    const { window, probes, send, opened } = windowOf(20);
    send(19);
    expect(probes).toEqual(['5', '10', '15']);
    expect(window.open).toBe(true);
    send(1);
    expect(probes).toEqual(['5', '10', '15', '20']);
    expect(window.open).toBe(false);
    window.answered(Buffer.from('10'));
    expect(window.open).toBe(true);
    expect(opened()).toBe(1);
  });

  it('ignores pongs it did not ask for: unnumbered, stale, or ahead of what was sent', () => {
    const { window, send, opened } = windowOf(8);
    send(8);
    for (const data of ['', 'heartbeat', '9', '-1', '2.5']) window.answered(Buffer.from(data));
    expect(window.open).toBe(false);
    window.answered(Buffer.from('4'));
    window.answered(Buffer.from('2'));
    expect(window.open).toBe(true);
    expect(opened()).toBe(1);
  });
});
