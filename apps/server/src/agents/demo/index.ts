export { createDemoAgent } from './demo-agent.js';
