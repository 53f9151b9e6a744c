import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace';
import { TraceConfigError } from './tracing-config-error.js';

type Env = Record<string, string | undefined>;

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

/**
 * The sampler OTEL_TRACES_SAMPLER names (OTEL_TRACES_SAMPLER_ARG is the ratio of the `traceidratio`
 * ones, 1 by default); `parentbased_always_on` when unset, as the specification says.
 */
export function readSampler(env: Env): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on';
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(readRatio(env));
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(readRatio(env)) });
    default:
      throw new TraceConfigError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, got "${name}".`);
  }
}

function readRatio(env: Env): number {
  const value = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  if (!value) return 1;
  const ratio = Number(value);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) throw new TraceConfigError(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "${value}".`);
  return ratio;
}
