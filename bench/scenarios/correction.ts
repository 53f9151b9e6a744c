import { formatFirehoseTask } from '../../apps/server/src/agents/firehose/firehose-params.js';
import type { TargetKind } from '../harness/target-process.js';
import type { CorrectionResult } from '../load/jobs.js';
import {
  BenchFailure,
  TARGET_KINDS,
  assertSoundStream,
  check,
  describeDisruption,
  expectKind,
  figure,
  millis,
  perSecond,
  streamSpec,
  streamTimeoutMs,
  type Scenario,
  type ScenarioReport,
} from './scenario.js';

/** The corrected session streams short steps, so there is always a fresh step to correct. */
const CORRECTED_RATE = 1_000;
const CORRECTED_STEP = 50;

/** Correction sent → accepted → first regenerated delta, while other sessions stream in the background. */
export const correctionScenario: Scenario = {
  name: 'correction',
  title: 'Correction round trip under load',
  async run(context): Promise<ScenarioReport> {
    const scale = context.scale.correction;
    const results: Partial<Record<TargetKind, CorrectionResult>> = {};
    for (const kind of TARGET_KINDS) {
      context.log(`correction: ${kind}, ${scale.corrections} corrections under ${perSecond(scale.backgroundPerSec)} background`);
      results[kind] = await context.withTarget(kind, {}, async (target) => {
        const background = streamSpec(context, target.wsUrl, scale, scale.backgroundPerSec);
        const correctedTask = formatFirehoseTask({ rate: CORRECTED_RATE, durationMs: 600_000, size: context.scale.deltaSize, perStep: CORRECTED_STEP });
        const job = { kind: 'correction' as const, background, correctedTask, corrections: scale.corrections, gapMs: scale.gapMs };
        const result = expectKind(await context.runLoad(job, streamTimeoutMs(background) + scale.corrections * 1_000), 'correction');
        assertSoundStream(result.background, `correction background on ${kind}`);
        if (result.corrections < Math.ceil(scale.corrections / 2)) {
          throw new BenchFailure(`correction on ${kind}: only ${result.corrections} of ${scale.corrections} corrections went through (${JSON.stringify(result.refused)}).`);
        }
        return result;
      });
    }
    const pick = (read: (result: CorrectionResult) => number) => ({
      value: results.interthought ? read(results.interthought) : null,
      baseline: results['raw-ws'] ? read(results['raw-ws']) : null,
    });
    return {
      figures: [
        figure('round trip p50 (sent → regenerated delta)', 'ms', 'lower', pick((r) => r.roundTrip.p50)),
        figure('round trip p99', 'ms', 'lower', pick((r) => r.roundTrip.p99)),
        figure('accepted p50 (sent → correction.accepted)', 'ms', 'lower', pick((r) => r.accepted.p50)),
        figure('accepted p99', 'ms', 'lower', pick((r) => r.accepted.p99)),
        figure('background delivered', 'msgs/s', 'higher', pick((r) => r.background.deliveredPerSec)),
        figure('background latency p99', 'ms', 'lower', pick((r) => r.background.latency.p99)),
      ],
      targets: [
        check('correction-p99', `Correction round trip p99 under ${perSecond(scale.backgroundPerSec)}`, results.interthought?.roundTrip.p99 ?? null, { max: 20 }, millis),
      ],
      notes: [
        ...TARGET_KINDS.flatMap((kind) => {
          const result = results[kind];
          const remark = result && describeDisruption(result.background, `${kind} background`);
          return remark ? [remark] : [];
        }),
        `${scale.corrections} corrections of the streaming step of one session (${CORRECTED_RATE} deltas/s, ${CORRECTED_STEP}-delta steps), ${scale.gapMs} ms apart.`],
      details: results,
    };
  },
};
