import { describeServiceContract } from './service-contract.js';
import { memoryNode, sqliteNode } from './targets.js';

describeServiceContract('SessionManager on the memory store', memoryNode());
describeServiceContract('SessionManager on SQLite', sqliteNode());
