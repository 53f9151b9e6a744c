export { ApiError, RestApi, attachmentName, type AccessCheck, type ExportFormat, type ExportedFile, type RestApiOptions } from './rest-api.js';
