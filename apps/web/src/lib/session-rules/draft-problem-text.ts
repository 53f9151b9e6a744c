import type { I18n } from '$lib/i18n/index.js';
import type { DraftProblem } from './rules-policy.js';

/** A problem of the rules or breakpoints editor, as the form says it. */
export function describeDraftProblem(i18n: I18n, problem: DraftProblem): string {
  switch (problem.kind) {
    case 'rule':
      return i18n.t('rules.invalid', { n: i18n.formatNumber(problem.row), problem: i18n.t(`rules.problem.${problem.problem}`) });
    case 'rules':
    case 'breakpoints':
      return i18n.t('rules.problem.schema', { message: problem.message });
    case 'breakpoint':
      return i18n.t('breakpoints.problem', { n: i18n.formatNumber(problem.row) });
    default: {
      const unknown: never = problem;
      void unknown;
      return '';
    }
  }
}
