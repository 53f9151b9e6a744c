export { addMcpTools, type McpTools } from './mcp-tools.js';
export { McpConnection, type McpLog } from './mcp-connection.js';
export { isMcpTool, type McpTool } from './mcp-tool.js';
export { mcpToolName, TOOL_NAME_MAX } from './tool-names.js';
export { readMcpConfigFile, McpConfigFileError, type McpServerConfig } from './mcp-config-file.js';
