import type { ChaosServer } from './chaos-server.js';
import type { ChaosScale } from './scale.js';
import type { SeededRandom } from '../apps/server/test/support/seeded-random.js';
import type { StallProbe } from './stall-probe.js';
import type { ChaosTally } from './tally.js';

/** What every phase of a chaos run gets. */
export interface PhaseContext {
  scale: ChaosScale;
  random: SeededRandom;
  tally: ChaosTally;
  probe: StallProbe;
  /** The one server every phase runs against (one SQLite file; the restart phase kills it). */
  server: ChaosServer;
  log: (line: string) => void;
}

/** A phase's deadline check: true while there is time left. */
export function until(deadline: number): () => boolean {
  return () => performance.now() < deadline;
}
