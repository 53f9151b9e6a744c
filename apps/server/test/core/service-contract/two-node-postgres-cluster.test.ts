import { usePostgresServer } from '../../support/postgres-scope.js';
import { describeServiceContract } from './service-contract.js';
import { twoNodeCluster } from './targets.js';

// The same contract with the log and session rows in Postgres: Redis carries leases, fan-out and routed commands only.
describeServiceContract('Two cluster nodes on Postgres and Redis', twoNodeCluster({ postgres: usePostgresServer() }));
