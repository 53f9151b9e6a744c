export { ApiError, RestApi, type AccessCheck, type RestApiOptions } from './rest-api.js';
