import { ROOT_KEY, alternativesOf, chainOfScope, isDelegateCall, scopeRootKey, type SessionState, type Step } from '@interthought/protocol';

/** Where a step sits among its alternatives (siblings), for the "‹ 2 / 3 ›" picker. */
export interface BranchPosition {
  /** 1-based position among the alternatives, oldest first. */
  position: number;
  total: number;
  /** The ids of all alternatives, oldest first. */
  alternatives: string[];
}

/** A `delegate` call in a batch row: the step that starts a sub-agent (PROTOCOL.md §24.1). */
export interface DelegateCall {
  stepId: string;
  readOnly: boolean;
  branch?: BranchPosition;
}

/** One row of the timeline. */
export type ChainRow =
  | { type: 'step'; key: string; stepId: string; readOnly: boolean; branch?: BranchPosition }
  /** Delegate calls one after another (a batch, run in parallel), each with its sub-agent drawn under it. */
  | { type: 'subagents'; key: string; calls: DelegateCall[] }
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
  /** The path depth each row begins at (a superseded fold: the depth of the step below it), for `relayoutFrom`. */
  rowDepths: number[];
}

/** Which chain a layout is of: the session's own (the root) or a sub-agent's (PROTOCOL.md §24.2). */
export interface ChainSource {
  /** The `children` key of the chain's first steps. */
  rootKey: string;
  /** The live chain, first step first. */
  chain: readonly string[];
  /** No step of it is live any more (a sub-agent whose delegate call was invalidated): show it as it last was, read-only. */
  historic?: boolean;
}

const NO_CHAIN: readonly string[] = [];

/** The chain of `scope` (the root's when absent) as a layout reads it; empty for a scope not started yet. */
export function chainSource(state: SessionState, scope?: string): ChainSource {
  if (scope === undefined) return { rootKey: ROOT_KEY, chain: state.chain };
  const historic = state.steps.get(scope)?.status === 'invalidated';
  return { rootKey: scopeRootKey(scope), chain: chainOfScope(state, scope) ?? NO_CHAIN, ...(historic ? { historic } : {}) };
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
export function displayedPath(state: SessionState, selection: BranchSelection, source: ChainSource = chainSource(state)): { path: string[]; divergesAt: number } {
  const path: string[] = [];
  // A historic chain has left the live one from its first step: each level follows its newest step.
  let divergesAt = source.historic ? 0 : -1;
  let parentKey = source.rootKey;
  for (let depth = 0; ; depth++) {
    const children = state.children.get(parentKey);
    if (!children?.length) break;
    const live = divergesAt === -1 ? source.chain[depth] : undefined;
    const picked = selection.get(parentKey);
    const next = picked !== undefined && children.includes(picked) ? picked : (live ?? (divergesAt === -1 ? undefined : newestChild(state, parentKey)));
    if (next === undefined) break;
    if (divergesAt === -1 && next !== live) divergesAt = depth;
    path.push(next);
    parentKey = next;
  }
  return { path, divergesAt };
}

/**
 * Whether `step` is a tool call the user edited before it ran (PROTOCOL.md §19.3): it replaced a
 * proposal that never ran, so nothing was superseded and there is no branch to pick, only the
 * proposal, which the step's badge shows as a diff.
 */
export function editedBeforeRun(state: SessionState, step: Step): boolean {
  if (step.approval?.state !== 'edited' || step.correctionOf === undefined) return false;
  return !(state.children.get(step.correctionOf)?.length);
}

/** Whether `stepId` is a proposal edited away before it ran: it is no alternative of its own. */
function editedAway(state: SessionState, stepId: string, alternatives: readonly string[]): boolean {
  return alternatives.some((id) => {
    const other = state.steps.get(id);
    return other?.correctionOf === stepId && editedBeforeRun(state, other);
  });
}

/** The steps a correcting step replaced: the step it corrected and the old chain below it. */
export function supersededBy(state: SessionState, correcting: Step): string[] {
  if (correcting.correctionOf === undefined || editedBeforeRun(state, correcting)) return [];
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
  const all = alternativesOf(state, stepId);
  if (all.length < 2) return undefined;
  const alternatives = all.filter((id) => !editedAway(state, id, all));
  if (alternatives.length < 2 || !alternatives.includes(stepId)) return undefined;
  return { position: alternatives.indexOf(stepId) + 1, total: alternatives.length, alternatives };
}

const foldableThought = (step: Step | undefined): boolean => step?.kind === 'thought' && step.status === 'completed';

/**
 * Turns a displayed path into rows, depth by depth. Its only state is the rows so far and the
 * run of completed thoughts or of delegate calls still open at the end, so a scan can resume at any depth.
 */
class RowScanner {
  #thoughtRun: string[] = [];
  #runDepth = 0;
  #batch: DelegateCall[] = [];
  #batchDepth = 0;

  constructor(
    private readonly state: SessionState,
    private readonly divergesAt: number,
    readonly rows: ChainRow[] = [],
    readonly rowDepths: number[] = [],
  ) {}

  /** Continue an open run of thoughts that began at `depth` (its rows were taken off the end). */
  reopenRun(stepIds: string[], depth: number): void {
    this.#thoughtRun = stepIds;
    this.#runDepth = depth;
  }

  /** Continue an open batch of delegate calls that began at `depth` (its row was taken off the end). */
  reopenBatch(calls: DelegateCall[], depth: number): void {
    this.#batch = calls;
    this.#batchDepth = depth;
  }

  visit(stepId: string, depth: number): void {
    const step = this.state.steps.get(stepId);
    if (!step) return;
    const onLiveChain = this.divergesAt === -1 || depth < this.divergesAt;
    const branch = branchOf(this.state, stepId);
    if (onLiveChain && foldableThought(step) && !branch) {
      this.endBatch();
      if (this.#thoughtRun.length === 0) this.#runDepth = depth;
      this.#thoughtRun.push(stepId);
      return;
    }
    this.endThoughtRun();
    const superseded = onLiveChain ? supersededBy(this.state, step) : [];
    // A fold of superseded steps sits between the calls around it, so it ends a batch.
    if (superseded.length || !isDelegateCall(step)) this.endBatch();
    if (superseded.length) this.#push({ type: 'superseded', key: `superseded:${stepId}`, stepIds: superseded }, depth);
    const readOnly = !onLiveChain || step.status === 'invalidated';
    if (isDelegateCall(step)) {
      if (this.#batch.length === 0) this.#batchDepth = depth;
      this.#batch.push({ stepId, readOnly, ...(branch ? { branch } : {}) });
      return;
    }
    this.#push({ type: 'step', key: stepId, stepId, readOnly, ...(branch ? { branch } : {}) }, depth);
  }

  /** Close whatever run is open at the end: the scan is over, or resumes after it. */
  end(): void {
    this.endThoughtRun();
    this.endBatch();
  }

  endBatch(): void {
    const calls = this.#batch;
    if (calls.length) this.#push({ type: 'subagents', key: `subagents:${calls[0]!.stepId}`, calls }, this.#batchDepth);
    this.#batch = [];
  }

  endThoughtRun(): void {
    const run = this.#thoughtRun;
    if (run.length >= 2) this.#push({ type: 'thoughts', key: `thoughts:${run[0]}`, stepIds: run }, this.#runDepth);
    else run.forEach((stepId, i) => this.#push({ type: 'step', key: stepId, stepId, readOnly: false }, this.#runDepth + i));
    this.#thoughtRun = [];
  }

  #push(row: ChainRow, depth: number): void {
    this.rows.push(row);
    this.rowDepths.push(depth);
  }
}

/** The timeline rows for a state and a branch selection (of the root's chain, or `source`'s). Pure: called on structural changes only. */
export function layoutChain(state: SessionState, selection: BranchSelection = new Map(), source: ChainSource = chainSource(state)): ChainLayout {
  const { path, divergesAt } = displayedPath(state, selection, source);
  const scanner = new RowScanner(state, divergesAt);
  path.forEach((stepId, depth) => scanner.visit(stepId, depth));
  scanner.end();
  return { rows: scanner.rows, path, viewingEarlierBranch: divergesAt !== -1, rowDepths: scanner.rowDepths };
}

/** The index of the first row that begins at `depth` or deeper (rows are in depth order). */
function firstRowAtOrBelow(rowDepths: readonly number[], depth: number): number {
  let low = 0;
  let high = rowDepths.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((rowDepths[middle] ?? 0) < depth) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The layout of the live chain after it grew, or after its steps from depth `from` on changed
 * status, laid out again only from there: a long chain costs per frame what its tail changed,
 * not its length. The rows above keep their objects, so the view leaves them alone.
 *
 * Only for the live chain with nothing selected, and `previous` laid out from a prefix of it
 * (no correction since): a correction or a branch pick calls `layoutChain`.
 */
export function relayoutFrom(state: SessionState, previous: ChainLayout, changedFrom: number, source: ChainSource = chainSource(state)): ChainLayout {
  const path = source.chain.slice();
  const from = Math.min(changedFrom, previous.path.length);
  let keep = firstRowAtOrBelow(previous.rowDepths, from);
  const scanner = new RowScanner(state, -1, previous.rows.slice(0, keep), previous.rowDepths.slice(0, keep));
  // A run of thoughts that ends just above `from` (or spans it) may grow: take it back off and reopen it.
  const last = scanner.rows[keep - 1];
  const lastDepth = scanner.rowDepths[keep - 1] ?? 0;
  if (last?.type === 'thoughts' || (last?.type === 'step' && !last.branch && foldableThought(state.steps.get(last.stepId)))) {
    const stepIds = last.type === 'thoughts' ? last.stepIds.slice(0, from - lastDepth) : [last.stepId];
    scanner.rows.pop();
    scanner.rowDepths.pop();
    keep--;
    scanner.reopenRun(stepIds, lastDepth);
  } else if (last?.type === 'subagents') {
    // A batch ending just above `from` (or spanning it) may grow by another call: reopen it too.
    scanner.rows.pop();
    scanner.rowDepths.pop();
    keep--;
    scanner.reopenBatch(last.calls.slice(0, from - lastDepth), lastDepth);
  }
  for (let depth = from; depth < path.length; depth++) scanner.visit(path[depth] ?? '', depth);
  scanner.end();
  return { rows: scanner.rows, path, viewingEarlierBranch: false, rowDepths: scanner.rowDepths };
}
