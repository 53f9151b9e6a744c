import type { ServiceTargetFactory } from './service-target.js';
import { describeCreation } from './creation.contract.js';
import { describeSubscriptions } from './subscriptions.contract.js';
import { describeCorrections } from './corrections.contract.js';
import { describeApprovals } from './approvals.contract.js';
import { describeApprovalRules } from './approval-rules.contract.js';
import { describeConversation } from './conversation.contract.js';
import { describeStatusChanges } from './status.contract.js';
import { describeDeletion } from './deletion.contract.js';
import { describeSessionList } from './session-list.contract.js';
import { describeTransfer } from './transfer.contract.js';
import { describeAccess } from './access.contract.js';
import { describeSubagents } from './subagents.contract.js';
import { describeQuestions } from './questions.contract.js';
import { describeBreakpoints } from './breakpoints.contract.js';

/** Every facet of the `SessionService` contract (its doc comments), against one kind of target. */
export function describeServiceContract(name: string, factory: ServiceTargetFactory): void {
  describeCreation(name, factory);
  describeSubscriptions(name, factory);
  describeCorrections(name, factory);
  describeApprovals(name, factory);
  describeApprovalRules(name, factory);
  describeConversation(name, factory);
  describeStatusChanges(name, factory);
  describeDeletion(name, factory);
  describeSessionList(name, factory);
  describeTransfer(name, factory);
  describeAccess(name, factory);
  describeSubagents(name, factory);
  describeQuestions(name, factory);
  describeBreakpoints(name, factory);
}
