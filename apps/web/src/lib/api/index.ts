export { ApiError, RestApi } from './rest-api.js';
