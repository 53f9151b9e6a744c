import { SessionView } from '$lib/chain/session-view.svelte.js';
import { EventLog, ManualFrames } from './session-events.js';

/**
 * A SessionView fed from an EventLog by hand: `flush()` sends the log's new events and folds
 * them, as the next animation frame would.
 */
export function liveSession() {
  const log = new EventLog();
  const frames = new ManualFrames();
  const session = new SessionView(log.sessionId, { schedule: frames.schedule });
  session.loadSnapshot(log.emptySnapshot());
  let seen = 0;
  const flush = (): void => {
    for (const event of log.events.slice(seen)) session.enqueue(event);
    seen = log.events.length;
    frames.run();
  };
  return { log, frames, session, flush };
}
