export { ApiError, RestApi, type AgentListing, type SessionPage, type SnapshotBody } from './rest-api.js';
