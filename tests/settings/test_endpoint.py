"""One check for a model endpoint wherever one is given by hand: the web UI's Settings page and
an organization's own model (`settings.values.check_endpoint`)."""

from __future__ import annotations

import pytest

from sleuth.errors import UsageError
from sleuth.settings.values import check_endpoint

pytest.importorskip("fastapi", reason="the Settings page needs sleuth[server]")
from sleuth.server.ui.saved import SavedSettings


class Text:
    def __init__(self) -> None:
        self.text: str | None = None

    def read(self) -> str | None:
        return self.text

    def write(self, text: str) -> None:
        self.text = text


@pytest.mark.parametrize(
    "url",
    ["localhost:11434/v1", "https://k:sk-123@llm.example/v1", "http://llm.example/v1?key=1",
     "http:///v1", "https://llm.example:port"],
)  # fmt: skip
def test_the_settings_page_and_org_models_refuse_the_same_endpoints(url: str) -> None:
    with pytest.raises(UsageError) as checked:
        check_endpoint(url)
    saved = SavedSettings(Text())  # type: ignore[arg-type]
    with pytest.raises(UsageError) as page:
        saved.update({"base_url": url}, set())
    assert str(page.value) == str(checked.value) and page.value.setting == "base_url"
    assert saved.text.read() is None  # type: ignore[attr-defined]


def test_a_good_endpoint_is_kept_trimmed() -> None:
    assert check_endpoint(" http://127.0.0.1:11434/v1 ") == "http://127.0.0.1:11434/v1"
    saved = SavedSettings(Text())  # type: ignore[arg-type]
    saved.update({"base_url": "https://api.openai.com/v1"}, set())
    assert saved.values()["base_url"] == "https://api.openai.com/v1"
