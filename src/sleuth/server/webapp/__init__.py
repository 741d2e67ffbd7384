"""The web-app dialect of the SSE API (the research web-app seed's `/api/sse`)."""
