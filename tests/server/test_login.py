"""The access password (issue 24, finding 6): kept as a salted scrypt verifier, a login opens a
server-side session (a random cookie, 12 hours, ended by `POST /logout` or a new password),
`Secure` over HTTPS and behind a trusted TLS proxy only, and wrong passwords from one address
wait longer and longer — through the login form and through `Authorization: Bearer` alike.
On today's main the cookie was an unsalted HMAC of the password, valid forever, with no logout,
and 500 wrong logins took 1.2 s."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server]")
import hashlib
import hmac
import stat

import httpx

from sleuth.server import password
from sleuth.server.access import COOKIE
from sleuth.server.config import ServerConfig
from sleuth.server.logins import LIFETIME_S
from tests.server.harness import Served, serving

PASSWORD = "correct horse battery staple"
HTML = {"Accept": "text/html"}


def login(client: httpx.Client, secret: str = PASSWORD, **headers: str) -> httpx.Response:
    return client.post("/login", data={"password": secret, "next": "/"}, headers=headers)


def cookie_of(response: httpx.Response) -> str:
    value = response.cookies.get(COOKIE)
    assert value, response.headers.get("set-cookie")
    return value


def shown(served: Served, cookie: str) -> int:
    """The status of the Settings page for a browser holding `cookie`."""
    got = httpx.get(served.base + "/settings", headers=HTML, cookies={COOKIE: cookie})
    return got.status_code


def test_only_a_salted_scrypt_verifier_is_kept() -> None:
    with serving(ServerConfig(access_password=PASSWORD)) as served:
        kept = served.state.config.access_password or ""
        verifier = password.parse(kept)
        assert verifier is not None and verifier.n >= 2**14 and PASSWORD not in kept
        assert verifier.matches(PASSWORD) and not verifier.matches(PASSWORD + " ")
        salt = served.state.app.home / password.SALT_FILE
        assert stat.S_IMODE(salt.stat().st_mode) == 0o600
    assert password.encode(PASSWORD) != password.encode(PASSWORD)  # a salt each
    given = ServerConfig(access_password=password.encode(PASSWORD))  # the operator's verifier
    with serving(given) as served, httpx.Client(base_url=served.base) as client:
        assert login(client).status_code == 303 and login(client, "guess").status_code == 401


def test_a_login_is_a_random_server_side_session_that_expires() -> None:
    with serving(ServerConfig(access_password=PASSWORD)) as served:
        with httpx.Client(base_url=served.base) as a, httpx.Client(base_url=served.base) as b:
            first, second = cookie_of(login(a)), cookie_of(login(b))
        assert first != second and PASSWORD not in first
        old = hmac.new(PASSWORD.encode(), b"sleuth-ui-login", hashlib.sha256).hexdigest()
        assert shown(served, old) == 303  # main's cookie, derived from the password alone
        assert shown(served, first) == 200
        served.clock.advance(LIFETIME_S - 60)
        assert shown(served, first) == 200
        served.clock.advance(120)
        assert shown(served, first) == 303 and shown(served, second) == 303


def test_logout_ends_the_session_whatever_the_cookie_says() -> None:
    with serving(ServerConfig(access_password=PASSWORD)) as served:
        with httpx.Client(base_url=served.base) as client:
            token = cookie_of(login(client))
            page = client.get("/", headers=HTML).text
            assert '<form class="logout" method="post" action="/logout">' in page
            out = client.post("/logout")
            assert out.status_code == 303 and out.headers["location"] == "/login"
            assert COOKIE not in client.cookies
        assert shown(served, token) == 303


def test_a_new_password_ends_the_old_sessions() -> None:
    config = ServerConfig(access_password=PASSWORD)
    with serving(config) as served, httpx.Client(base_url=served.base) as client:
        token = cookie_of(login(client))
    with serving(ServerConfig(access_password="another password entirely")) as again:
        assert shown(again, token) == 303
    with serving(ServerConfig(access_password=PASSWORD)) as same:
        assert shown(same, token) == 200  # a restart with the same password keeps it


def test_the_cookie_is_secure_over_https_from_a_trusted_proxy_only() -> None:
    https = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    trusting = ServerConfig(access_password=PASSWORD, trusted_proxies=("127.0.0.1",))
    with serving(trusting) as served, httpx.Client(base_url=served.base) as client:
        cookie = login(client, **https).headers["set-cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert "Secure" not in login(client).headers["set-cookie"]  # plain http from the proxy
    plain = ServerConfig(access_password=PASSWORD)
    with serving(plain) as served, httpx.Client(base_url=served.base) as client:
        assert "Secure" not in login(client, **https).headers["set-cookie"]  # not believed


def test_wrong_passwords_wait_longer_and_longer() -> None:
    config = ServerConfig(access_password=PASSWORD)
    with serving(config) as served, httpx.Client(base_url=served.base) as client:
        assert [login(client, "guess").status_code for _ in range(4)] == [401] * 4
        waits = []
        for _ in range(4):
            refused = login(client, "guess")
            assert refused.status_code == 429
            waits.append(int(refused.headers["retry-after"]))
            assert login(client).status_code == 429  # even the right one: no slipping in
            served.clock.advance(waits[-1])
            assert login(client, "guess").status_code == 401
        assert waits == [1, 2, 4, 8]
        served.clock.advance(16)
        assert login(client).status_code == 303  # the right one, after the wait
        assert login(client, "guess").status_code == 401  # and the count starts again


def test_the_password_as_a_bearer_token_is_throttled_with_the_form() -> None:
    with serving(ServerConfig(access_password=PASSWORD)) as served:
        whoami = served.base + "/api/whoami"
        with httpx.Client(base_url=served.base) as client:
            for _ in range(3):
                assert login(client, "guess").status_code == 401
        wrong = {"Authorization": "Bearer guess"}
        assert httpx.get(whoami, headers=wrong).status_code == 401
        refused = httpx.get(whoami, headers={"Authorization": f"Bearer {PASSWORD}"})
        assert refused.status_code == 429 and refused.json()["code"] == "TOO_MANY_ATTEMPTS"
        assert refused.headers["retry-after"] == "1"
        served.clock.advance(1)
        right = httpx.get(whoami, headers={"Authorization": f"Bearer {PASSWORD}"})
        assert right.status_code == 200 and right.json()["orgId"] == "local"
        key = served.key("acme")  # keys are not passwords: never throttled by them
        assert httpx.get(whoami, headers={"X-API-Key": key}).json()["orgId"] == "acme"
