import type { ServerMessage } from '@interthought/protocol';
import { WebSocket } from 'ws';

/**
 * A plain WebSocket client of the real server for what a test sets up beside the browser (a
 * session and a correction made by someone else): each request answered by its `requestId`.
 */
export class SocketLine {
  readonly frames: ServerMessage[] = [];
  #next = 0;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => this.frames.push(JSON.parse(String(data)) as ServerMessage));
  }

  static async open(serverUrl: string): Promise<SocketLine> {
    const socket = new WebSocket(`${serverUrl.replace(/^http/u, 'ws')}/ws`);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new SocketLine(socket);
  }

  /** Send a request and resolve with its answer. */
  ask(frame: Record<string, unknown>): Promise<ServerMessage> {
    const id = `e2e${++this.#next}`;
    this.socket.send(JSON.stringify({ ...frame, id }));
    return this.until((answer) => 'requestId' in answer && answer.requestId === id, `the answer to ${String(frame.type)}`);
  }

  /** The first frame, received or to come, that matches. */
  async until(matches: (frame: ServerMessage) => boolean, what: string, timeoutMs = 20_000): Promise<ServerMessage> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(matches);
      if (found !== undefined) return found;
      if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Create a session of `agent` and resolve with its id once it completed, and the id of its first step. */
  async finishedSession(task: string, agent: string): Promise<{ sessionId: string; firstStepId: string }> {
    const created = await this.ask({ type: 'session.create', task, agent });
    if (created.type !== 'session.created') throw new Error(`session.create was answered with ${JSON.stringify(created)}`);
    const { sessionId } = created.session;
    await this.until((frame) => frame.type === 'session.status' && frame.sessionId === sessionId && frame.status === 'completed', `session ${sessionId} to complete`);
    const started = await this.until((frame) => frame.type === 'step.started' && frame.sessionId === sessionId, 'its first step');
    return { sessionId, firstStepId: started.type === 'step.started' ? started.step.stepId : '' };
  }

  close(): void {
    this.socket.close();
  }
}
