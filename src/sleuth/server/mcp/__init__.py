"""Sleuth as an MCP server (the official `mcp` SDK): tools `research` and `search`, over stdio
(`sleuth mcp`, no web server needed) and, in `sleuth serve`, over streamable HTTP (`/api/mcp`)
and the legacy SSE transport (`/api/mcp/sse`)."""
