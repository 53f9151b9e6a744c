// An agent behind an AG-UI endpoint: the session's chain goes out as RunAgentInput, the event stream comes back as steps.
export { agUiAgent, type AgUiAgentSetup } from './ag-ui-agent.js';
export { AG_UI_LIMITS, type AgUiEndpoint } from './config.js';
export { AgUiFailure } from './agent-failure.js';
