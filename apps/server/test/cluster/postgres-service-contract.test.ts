import { describeServiceContract } from '../core/service-contract/service-contract.js';
import { twoNodeCluster } from '../core/service-contract/targets.js';
import { usePostgresServer } from '../support/postgres-scope.js';

// The two-node service contract with the log in Postgres: a client of node b sees, and acts on, the sessions created on node a.
const postgres = usePostgresServer();
describeServiceContract('Two cluster nodes on Postgres + Redis', twoNodeCluster({ postgres }));
