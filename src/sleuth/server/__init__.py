"""`sleuth serve`: the Research API over HTTP, a thin face over the application (`Sleuth`).

    app.py          create_app(config): routes, error shape, middleware, docs, lifespan
    auth.py         API keys → Principal; organization membership (404) and scopes (403)
    research.py     the result cache, identical requests sharing one run, admission, metering
    idempotency.py  Idempotency-Key replay, 409 while running, 422 when reused
    routes/         research, search + extract, whoami/usage/runs/health/metrics
    models.py errors.py observe.py bodylimit.py metrics.py config.py state.py main.py

Importing this package imports FastAPI (the `server` extra); the CLI does so only in `serve`.
"""
