// @vitest-environment node
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe } from 'vitest';
import { approvalScenarios } from './scenarios/approvals.js';
import { conversationScenarios } from './scenarios/conversation.js';
import { deleteScenarios } from './scenarios/delete.js';
import { resumeScenarios } from './scenarios/resume.js';
import { preferenceScenarios } from './scenarios/preferences.js';
import { sessionFlowScenarios } from './scenarios/session-flow.js';
import { sessionListScenarios } from './scenarios/session-list.js';
import { twoTabScenarios } from './scenarios/two-tabs.js';
import { launchBrowser } from './support/browser.js';
import type { E2eEnv } from './support/e2e-env.js';
import { startServer, type RunningServer } from './support/server.js';

// End to end, in real Chromium against the real server (spawned as a child process, serving the
// web build). One server and one browser for every scenario: the machine has two cores.
let server: RunningServer | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

function env(): E2eEnv {
  if (!server || !browser) throw new Error('The e2e environment did not start (see the beforeAll error).');
  return { server, browser };
}

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
