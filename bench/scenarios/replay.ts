import { formatFirehoseTask } from '../../apps/server/src/agents/firehose/firehose-params.js';
import type { TargetKind } from '../harness/target-process.js';
import type { ReplayResult } from '../load/jobs.js';
import { BenchFailure, TARGET_KINDS, check, expectKind, figure, perSecond, type Scenario, type ScenarioReport } from './scenario.js';

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? null) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Build a session of N events as fast as the server goes, then replay it with `afterSeq: 0`. */
export const replayScenario: Scenario = {
  name: 'replay',
  title: 'Replay from afterSeq 0',
  async run(context): Promise<ScenarioReport> {
    const scale = context.scale.replay;
    const task = formatFirehoseTask({ rate: Infinity, count: scale.events, size: context.scale.deltaSize, perStep: 1_000 });
    const results: Partial<Record<TargetKind, ReplayResult>> = {};
    const notes: string[] = [];
    for (const kind of TARGET_KINDS) {
      context.log(`replay: ${kind}, ${scale.events.toLocaleString('en-US')} deltas, ${scale.repeats} replays`);
      const result = await context.withTarget(kind, {}, async (target) =>
        expectKind(await context.runLoad({ kind: 'replay', url: target.wsUrl, task, repeats: scale.repeats }, 300_000), 'replay'),
      );
      if (result.events < scale.events) throw new BenchFailure(`replay on ${kind}: the session had ${result.events} events, fewer than ${scale.events}.`);
      if (result.answeredWith === 'snapshot') notes.push(`${kind} answered the replay with a snapshot: it no longer kept every event (retention).`);
      results[kind] = result;
    }
    const pick = (read: (result: ReplayResult) => number | null) => ({
      value: results.interthought ? read(results.interthought) : null,
      baseline: results['raw-ws'] ? read(results['raw-ws']) : null,
    });
    const medianRate = pick((r) => median(r.replayPerSec));
    notes.push(`A firehose session of ${scale.events.toLocaleString('en-US')} deltas (${results.interthought?.events.toLocaleString('en-US') ?? '?'} events with its steps and statuses), replayed ${scale.repeats}× on fresh connections.`);
    return {
      figures: [
        figure('replay (median)', 'events/s', 'higher', medianRate),
        figure('replay (best)', 'events/s', 'higher', pick((r) => Math.max(...r.replayPerSec))),
        figure('building the session (rate=max)', 'events/s', 'higher', pick((r) => (r.events / r.buildMs) * 1_000)),
        figure('replays cut by the server and resumed', 'resumes', 'lower', pick((r) => r.resumes)),
      ],
      targets: [check('replay', 'Replay rate (median)', medianRate.value, { min: 200_000 }, perSecond)],
      notes,
      details: results,
    };
  },
};
