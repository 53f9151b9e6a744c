import { HttpAgent } from '@ag-ui/client';
import { EventEncoder } from '@ag-ui/encoder';
import type { BaseEvent, Message } from '@ag-ui/core';
import type { ServerMessage, SessionEvent, Step } from '@interthought/protocol';
import type { Frame } from '../../../src/core/fanout/frame.js';
import { AgUiRunStream } from '../../../src/http/ag-ui/run-stream.js';

/*
 * What the run-stream tests share: one session's events as a server sends them to an AG-UI run,
 * fed to an `AgUiRunStream`, and the real `HttpAgent` reading what it made.
 */

/** A frame of `message` as the fan-out hands it to a subscriber. */
export const frame = (message: ServerMessage | SessionEvent): Frame => ({ message, text: '', live: true, event: undefined }) as unknown as Frame;

/** A step as `step.started` carries it: streaming, empty, at revision 0. */
export const step = (stepId: string, parentId: string | null, index: number, kind: Step['kind'], extra: Partial<Step> = {}): Step =>
  ({ stepId, parentId, index, kind, status: 'streaming', content: '', revision: 0, ...extra }) as Step;

/** One session's events, numbered as its server numbers them, and the AG-UI run a client created for its task. */
export class SessionFeed {
  private seq = 0;
  readonly info: { sessionId: string; task: string; agent: string; status: string; revision: number; createdAt: string };

  constructor(readonly sessionId: string, task: string) {
    this.info = { sessionId, task, agent: 'demo', status: 'idle', revision: 0, createdAt: '2026-01-01T00:00:00.000Z' };
  }

  /** `event` stamped as the session's next one. */
  readonly ev = (event: Record<string, unknown>): SessionEvent => {
    this.seq += 1;
    return { ...event, sessionId: this.sessionId, seq: this.seq, at: new Date(Date.UTC(2026, 0, 1) + this.seq).toISOString() } as unknown as SessionEvent;
  };

  /** Number the next events from 1 again (a new run of events for a fresh stream). */
  restart(): void {
    this.seq = 0;
  }

  /** The `session.created` frame a run's stream is handed first. */
  created(): Frame {
    return frame({ type: 'session.created', session: this.info } as unknown as ServerMessage);
  }

  /** The AG-UI events an `AgUiRunStream` makes of `events` for a run created by the client. */
  streamOf(events: readonly SessionEvent[]): BaseEvent[] {
    const out: BaseEvent[] = [];
    const stream = new AgUiRunStream(this.sessionId, 'run-1', { id: 'agui_test' });
    stream.open((event) => out.push(event), { threadId: this.sessionId, runId: 'run-1', messages: [{ id: 'u1', role: 'user', content: this.info.task }], tools: [], context: [], state: {}, forwardedProps: {} });
    stream.send(this.created());
    stream.commanded();
    for (const event of events) stream.send(frame(event));
    return out;
  }

  /** Run the real HttpAgent on a body of `events`, as our route would send them: its messages after, and every event it saw. */
  async clientRun(events: readonly BaseEvent[]): Promise<{ messages: Message[]; seen: BaseEvent[] }> {
    const encoder = new EventEncoder();
    const body = events.map((event) => encoder.encode(event)).join('');
    const agent = new HttpAgent({
      url: 'http://interthought.test/api/ag-ui/demo',
      threadId: this.sessionId,
      fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    });
    agent.addMessage({ id: 'u1', role: 'user', content: this.info.task });
    const seen: BaseEvent[] = [];
    await agent.runAgent({ runId: 'run-1' }, { onEvent: ({ event }) => void seen.push(event) });
    return { messages: agent.messages, seen };
  }
}
