"""`sleuth serve`: the Research API over HTTP, a thin face over the application (`Sleuth`).

    app.py          create_app(config): routes, error shape, middleware, docs, lifespan
    auth.py         API keys → Principal; organization membership (404) and scopes (403)
    research.py     the result cache, identical requests sharing one run, admission, metering
    idempotency.py  Idempotency-Key replay, 409 while running, 422 when reused
    routes/         research, search + extract, whoami/usage/runs/health/metrics, the
                    web-app SSE dialect (webapp.py)
    live.py         runs streams follow: shared in flight, cancelled with their last follower
    stream.py       Sleuth's own SSE framing (sse-starlette); webapp/ the web-app dialect
    access.py       who may use the SSE API and MCP: keys or SLEUTH_ACCESS_PASSWORD
    mcp/            the MCP tools; stdio (`sleuth mcp`, needs only the mcp extra) and HTTP
    models.py errors.py observe.py bodylimit.py metrics.py config.py state.py main.py

Its modules import FastAPI (the `server` extra), except `mcp/tools.py`, `mcp/watch.py` and
`mcp/local.py` (the `mcp` extra alone); the CLI imports them only in `serve` and `mcp`.
"""
