export { ApiError, RestApi, SHARE_HEADER, attachmentName, type AccessAnswer, type AccessCheck, type ExportFormat, type ExportedFile, type RestApiOptions } from './rest-api.js';
