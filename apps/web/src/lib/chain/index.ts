// The chain view: state classes (.svelte.ts), pure layout, and one component per file.
export { SessionView, type SessionPhase, type SessionViewOptions } from './session-view.svelte.js';
export { StepView } from './step-view.svelte.js';
export { OutgoingMessages, type OutgoingMessage } from './outgoing-messages.svelte.js';
export { CorrectionDraft, formatToolInput, type DraftCheck } from './correction-draft.svelte.js';
export { ApprovalDecision, type DecisionKind } from './approval-decision.svelte.js';
export { describeDecision, describeRefusal, type DecisionText } from './approval-text.js';
export { AutoScroll } from './auto-scroll.svelte.js';
export {
  layoutChain,
  relayoutFrom,
  displayedPath,
  supersededBy,
  chainSource,
  type ChainRow,
  type ChainLayout,
  type ChainSource,
  type BranchPosition,
  type BranchSelection,
  type DelegateCall,
} from './chain-rows.js';
export { SubagentView } from './subagent-view.svelte.js';
export { SubagentViews, type ScopeChanges } from './subagent-views.svelte.js';
export { countRunningSubagents } from './subagent-count.js';
export { animationFrameScheduler, type FrameScheduler } from './frame-scheduler.js';
export { provideChain, useChain, type ChainActions, type ChainContext } from './chain-context.js';
export { provideChainNavigation, useChainNavigation, virtualChainNavigation, stepCard, type ChainNavigation, type RevealOptions } from './chain-navigation.js';
export { displayText, isLongText, isMonospaceKind } from './step-text.js';
export { default as ChainTimeline } from './ChainTimeline.svelte';
export { VirtualChain } from './virtual-rows/virtual-chain.svelte.js';
export { default as StepCard } from './StepCard.svelte';
export { default as StepBody } from './StepBody.svelte';
export { default as StreamingText } from './StreamingText.svelte';
export { default as MarkdownText } from './MarkdownText.svelte';
export { default as CorrectionEditor } from './CorrectionEditor.svelte';
export { default as CorrectionBadge } from './CorrectionBadge.svelte';
export { default as StepTrail } from './StepTrail.svelte';
export { default as ApprovalPrompt } from './ApprovalPrompt.svelte';
export { default as ApprovalRecord } from './ApprovalRecord.svelte';
export { default as RefusalNotice } from './RefusalNotice.svelte';
export { default as WordDiff } from './WordDiff.svelte';
export { default as BranchPicker } from './BranchPicker.svelte';
export { default as StepFold } from './StepFold.svelte';
export { default as SkeletonSteps } from './SkeletonSteps.svelte';
export { default as SubagentBatch } from './SubagentBatch.svelte';
export { default as SubagentPanel } from './SubagentPanel.svelte';
export { default as SubagentRows } from './SubagentRows.svelte';
