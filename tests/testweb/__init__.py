"""The loopback test web (DESIGN §6): realistic pages at their real http:// URLs through a
forward proxy, and SearXNG-compatible search, all on one 127.0.0.1 server.

Tests use the `testweb` / `testweb_env` fixtures (fixtures.py); page URLs are in `site`.
"""

from tests.testweb.server import Request, SearchMode, TestWeb

__all__ = ["Request", "SearchMode", "TestWeb"]
