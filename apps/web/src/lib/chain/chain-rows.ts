import { ROOT_KEY, alternativesOf, type SessionState, type Step } from '@interthought/protocol';

/** Where a step sits among its alternatives (siblings), for the "‹ 2 / 3 ›" picker. */
export interface BranchPosition {
  /** 1-based position among the alternatives, oldest first. */
  position: number;
  total: number;
  /** The ids of all alternatives, oldest first. */
  alternatives: string[];
}

/** One row of the timeline. */
export type ChainRow =
  | { type: 'step'; key: string; stepId: string; readOnly: boolean; branch?: BranchPosition }
  /** The steps a correction replaced, folded into one muted row just above the correcting step. */
  | { type: 'superseded'; key: string; stepIds: string[] }
  /** A run of completed thoughts, shown as one line ("Thought for 4 s · 3 steps") until opened. */
  | { type: 'thoughts'; key: string; stepIds: string[] };

/** Which alternative the user chose to look at, by the parent they share (`ROOT_KEY` for first steps). */
export type BranchSelection = ReadonlyMap<string, string>;

export interface ChainLayout {
  rows: ChainRow[];
  /** The step ids shown, top to bottom (folded ones excluded). */
  path: string[];
  /** True when the path leaves the live chain: the user is looking at an earlier branch. */
  viewingEarlierBranch: boolean;
}

function newestChild(state: SessionState, parentKey: string): string | undefined {
  const children = state.children.get(parentKey);
  return children?.[children.length - 1];
}

/**
 * The path to show: the live chain, except where the user picked another alternative; below
 * such a pick, each level follows the newest child, which is the chain as it was when that
 * branch was live (a correction always adds the newest child of its parent).
 */
export function displayedPath(state: SessionState, selection: BranchSelection): { path: string[]; divergesAt: number } {
  const path: string[] = [];
  let divergesAt = -1;
  let parentKey = ROOT_KEY;
  for (let depth = 0; ; depth++) {
    const children = state.children.get(parentKey);
    if (!children?.length) break;
    const live = divergesAt === -1 ? state.chain[depth] : undefined;
    const picked = selection.get(parentKey);
    const next = picked !== undefined && children.includes(picked) ? picked : (live ?? (divergesAt === -1 ? undefined : newestChild(state, parentKey)));
    if (next === undefined) break;
    if (divergesAt === -1 && next !== live) divergesAt = depth;
    path.push(next);
    parentKey = next;
  }
  return { path, divergesAt };
}

/** The steps a correcting step replaced: the step it corrected and the old chain below it. */
export function supersededBy(state: SessionState, correcting: Step): string[] {
  if (correcting.correctionOf === undefined) return [];
  const ids: string[] = [];
  let current: string | undefined = correcting.correctionOf;
  while (current !== undefined) {
    const step = state.steps.get(current);
    if (!step || step.status !== 'invalidated') break;
    ids.push(current);
    current = newestChild(state, current);
  }
  return ids;
}

function branchOf(state: SessionState, stepId: string): BranchPosition | undefined {
  const alternatives = alternativesOf(state, stepId);
  if (alternatives.length < 2) return undefined;
  return { position: alternatives.indexOf(stepId) + 1, total: alternatives.length, alternatives };
}

const foldableThought = (step: Step | undefined): boolean => step?.kind === 'thought' && step.status === 'completed';

/** The timeline rows for a state and a branch selection. Pure: called on structural changes only. */
export function layoutChain(state: SessionState, selection: BranchSelection = new Map()): ChainLayout {
  const { path, divergesAt } = displayedPath(state, selection);
  const rows: ChainRow[] = [];
  let thoughtRun: string[] = [];
  const endThoughtRun = () => {
    if (thoughtRun.length >= 2) rows.push({ type: 'thoughts', key: `thoughts:${thoughtRun[0]}`, stepIds: thoughtRun });
    else for (const stepId of thoughtRun) rows.push({ type: 'step', key: stepId, stepId, readOnly: false });
    thoughtRun = [];
  };

  path.forEach((stepId, depth) => {
    const step = state.steps.get(stepId);
    if (!step) return;
    const onLiveChain = divergesAt === -1 || depth < divergesAt;
    const branch = branchOf(state, stepId);
    if (onLiveChain && foldableThought(step) && !branch) {
      thoughtRun.push(stepId);
      return;
    }
    endThoughtRun();
    if (onLiveChain) {
      const superseded = supersededBy(state, step);
      if (superseded.length) rows.push({ type: 'superseded', key: `superseded:${stepId}`, stepIds: superseded });
    }
    rows.push({ type: 'step', key: stepId, stepId, readOnly: !onLiveChain || step.status === 'invalidated', ...(branch ? { branch } : {}) });
  });
  endThoughtRun();
  return { rows, path, viewingEarlierBranch: divergesAt !== -1 };
}
