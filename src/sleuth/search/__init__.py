"""Search backends, one module each, registered by name (see `sleuth.registry`).

`spec.build_search("multi:duckduckgo,wikipedia", settings)` turns a user's spec into a ready
backend; the engine only ever sees the `SearchBackend` interface.
"""
