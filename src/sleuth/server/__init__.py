"""`sleuth serve`: the Research API (FastAPI), its server-sent event streams (Sleuth's own and
the web-app dialect) and MCP over HTTP; `mcp/` also serves `sleuth mcp` over stdio. Needs the
server extra (the mcp extra alone for stdio); nothing here is imported by the CLI's start-up."""
