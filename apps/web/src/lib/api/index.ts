export { ApiError, RestApi, SHARE_HEADER, attachmentName, type AccessAnswer, type AccessCheck, type ExportFormat, type ExportedFile, type RestApiOptions } from './rest-api.js';
export { CORRECTION_FILTER_KEYS, correctionExportPath, correctionFilterQuery, correctionListPath } from './correction-query.js';
