import { describeServiceContract } from './service-contract.js';
import { twoNodeCluster } from './targets.js';

// A client of node b sees, and acts on, the sessions created on node a.
describeServiceContract('Two cluster nodes on one Redis', twoNodeCluster());
