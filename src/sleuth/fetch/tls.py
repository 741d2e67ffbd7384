"""One TLS context per process: loading the certificate bundle costs ~30 ms each time, and the
fetcher, the search backends and the model SDK clients all need the same trust store."""

from __future__ import annotations

import ssl
from functools import cache

import httpx2


@cache
def tls_context() -> ssl.SSLContext:
    # trust_env: SSL_CERT_FILE / SSL_CERT_DIR are honoured, as every standard client does.
    return httpx2.create_ssl_context(trust_env=True)
