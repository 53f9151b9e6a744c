// @vitest-environment node
import { describe } from 'vitest';
import { approvalScenarios } from './scenarios/approvals.js';
import { conversationScenarios } from './scenarios/conversation.js';
import { deleteScenarios } from './scenarios/delete.js';
import { resumeScenarios } from './scenarios/resume.js';
import { preferenceScenarios } from './scenarios/preferences.js';
import { sessionFlowScenarios } from './scenarios/session-flow.js';
import { sessionListScenarios } from './scenarios/session-list.js';
import { twoTabScenarios } from './scenarios/two-tabs.js';
import { useServerAndBrowser } from './support/shared-env.js';

// End to end, in real Chromium against the real server (spawned as a child process, serving the
// web build). One server and one browser for every scenario: the machine has two cores.
const env = useServerAndBrowser();

describe('web app in Chromium', { timeout: 60_000 }, () => {
  describe('a session from start to correction', () => sessionFlowScenarios(env));
  describe('resuming after reloads and dropped connections', () => resumeScenarios(env));
  describe('several tabs on one session', () => twoTabScenarios(env));
  describe('deleting a session', () => deleteScenarios(env));
  describe('the session list in every tab', () => sessionListScenarios(env));
  describe('language, theme and keyboard', () => preferenceScenarios(env));
  describe('approving, editing and rejecting a tool call before it runs', () => approvalScenarios(env));
  describe('conversations: follow-ups, steering, forks, export and import', () => conversationScenarios(env));
});
