import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { LESSONS_LIMITS, type CorrectionRecord } from '@interthought/protocol';
import { agUiAgent } from '../../../src/agents/ag-ui/index.js';
import { lessonsFrom, type LessonCandidates } from '../../../src/corrections/lessons/index.js';
import { SessionManager } from '../../../src/core/session-manager.js';
import { MemoryEventStore } from '../../../src/store/memory-event-store.js';
import { createDefaultTools } from '../../../src/tools/index.js';
import { FakeAgUiServer, run, text } from '../../agents/ag-ui/fake-ag-ui-server.js';
import { untilSettled } from '../../agents/ag-ui/support.js';

/*
 * An AG-UI agent with lessons (PROTOCOL.md §26.4) on the real session core: the guidance goes in
 * its `RunAgentInput` as a `system` message before the task (AG-UI's role for instructions), and
 * the lessons step is not sent again as a message. Candidates come from an in-memory port.
 */

const earlier: CorrectionRecord = {
  sessionId: 'earlierSessionxxxxxxx',
  stepId: 'earlierStepxxxxxxxxxx',
  correctedStepId: 'earlierFixxxxxxxxxxxx',
  index: 0,
  kind: 'final_answer',
  correction: 'edited',
  before: 'It is sunny.',
  after: 'Check the forecast first.',
  note: 'never guess the weather',
  by: 'someone',
  at: '2026-11-29T16:21:58.955Z',
  task: 'What is the weather in Paris today?',
  agent: 'agui',
};

let fake: FakeAgUiServer;
let manager: SessionManager;
const asked: Array<Parameters<LessonCandidates['forRun']>[0]> = [];

beforeEach(async () => {
  fake = await FakeAgUiServer.start();
  const candidates: LessonCandidates = {
    async forRun(query) {
      asked.push(query);
      return [earlier];
    },
  };
  manager = new SessionManager({
    store: new MemoryEventStore(),
    agents: new AgentRegistry('agui').register(agUiAgent({ name: 'agui', description: 'A test AG-UI agent', endpoint: { url: fake.url, headers: {}, timeoutMs: 2_000, retries: 0 }, env: {}, lessons: { max: 3 } })),
    tools: createDefaultTools(),
    defaultTokenDelayMs: 0,
    lessons: lessonsFrom(candidates),
  });
});
afterEach(async () => {
  await manager.shutdown();
  await fake.close();
});

describe('an AG-UI agent with lessons', () => {
  it('gets the guidance as a system message before the task, and the lessons step as no message of its own', async () => {
    const task = 'What is the weather in Lyon today?';
    fake.script(task, { frames: run(...text('m1', 'Let me check the forecast.')) });
    const { sessionId } = await manager.create({ task, agent: 'agui', options: {} });
    const { chain } = await untilSettled(manager, sessionId, 'completed');
    expect(chain.map((step) => step.kind)).toEqual(['thought', 'final_answer']);
    expect(chain[0]!.lessons).toEqual([{ sessionId: earlier.sessionId, stepId: earlier.stepId, correctedStepId: earlier.correctedStepId }]);
    expect(asked.at(-1)).toMatchObject({ agent: 'agui', excludeSessionId: sessionId });
    const [request] = fake.requestsFor(task);
    expect(request!.messages.map((message) => [message.role, message.content])).toEqual([
      ['system', chain[0]!.content],
      ['user', task],
    ]);
    expect(chain[0]!.content.length).toBeLessThanOrEqual(LESSONS_LIMITS.maxChars);
  });
});
