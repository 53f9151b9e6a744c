import WebSocket from 'ws';

/**
 * Create a firehose session over the WebSocket (the home page offers only the regular agents) and
 * return its id. Token pacing is off: the firehose paces itself (by its task's `rate=`).
 */
export async function createFirehoseSession(url: string, task: string): Promise<string> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`);
  try {
    return await new Promise<string>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('message', () => {
        socket.on('message', (data: Buffer) => {
          const frame = JSON.parse(data.toString('utf8')) as { type: string; session?: { sessionId: string }; message?: string };
          if (frame.type === 'session.created' && frame.session) resolve(frame.session.sessionId);
          else if (frame.type === 'error') reject(new Error(frame.message));
        });
        socket.send(JSON.stringify({ type: 'session.create', id: 'r1', task, agent: 'firehose', options: { tokenDelayMs: 0 } }));
      });
    });
  } finally {
    socket.close();
  }
}
