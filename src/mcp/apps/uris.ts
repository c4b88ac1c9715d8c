// Where the MCP Apps pages live and what they are served as. Kept apart from the pages themselves so a tool can
// declare the artifact viewer without loading it (the page loads when a host first reads it).
export const MCP_APP_MIME = "text/html;profile=mcp-app";
export const ARTIFACT_VIEWER_URI = "ui://codex-bridge/artifact-viewer.html";
