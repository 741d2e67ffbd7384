"""Settings saved from the UI's Settings page, kept server-side: in `$SLEUTH_HOME/ui.json`
(readable by the owner only), or with SLEUTH_DATABASE_URL in the database, so every replica
runs with what was saved through any one of them. A secret (the model API key) is never sent
back to the browser: the page shows whether one is set and its last four characters."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...errors import UsageError
from ...settings.table import SETTINGS
from ...settings.values import check_endpoint, coerce

if TYPE_CHECKING:
    from ...store.ui_text import SavedText

# Settings of the table (same names, same meaning); a test holds them to it.
FIELDS = ("api_format", "base_url", "api_key", "model", "plan_model", "search", "search_lang")
SECRETS = frozenset(name for name in FIELDS if SETTINGS[name].secret)
MAX_VALUE = 2000


@dataclass(frozen=True, slots=True)
class Shown:
    name: str
    value: str  # "" for a secret
    secret: bool
    hint: str  # a secret's last four characters, when set
    choices: tuple[str, ...] = ()  # a closed choice (the provider) is picked from a list


class SavedSettings:
    def __init__(self, text: SavedText) -> None:
        self.text = text

    def _read(self) -> dict[str, str]:
        try:
            data = json.loads(self.text.read() or "{}")
        except ValueError:
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if k in FIELDS and isinstance(v, str) and v}

    def values(self) -> dict[str, Any]:
        """Setting values for a run (the thinking model also reviews)."""
        data = self._read()
        if "plan_model" in data:
            data["critic_model"] = data["plan_model"]
        return dict(data)

    def shown(self) -> list[Shown]:
        data = self._read()
        return [
            Shown(n, "" if n in SECRETS else data.get(n, ""), n in SECRETS,
                  f"…{data[n][-4:]}" if n in SECRETS and n in data else "", SETTINGS[n].choices)
            for n in FIELDS
        ]  # fmt: skip

    def update(self, form: dict[str, str], clear: set[str]) -> None:
        """Apply the form: an empty secret field keeps the saved secret; `clear` removes."""
        data = self._read()
        for name in FIELDS:
            value = form.get(name, "").strip()
            if len(value) > MAX_VALUE:
                raise UsageError(f"{name} is too long", setting=name)
            if name in clear or (not value and name not in SECRETS):
                data.pop(name, None)
            elif value:
                data[name] = value
        if data.get("search_lang"):  # checked, and kept in its canonical case (pt-BR)
            data["search_lang"] = coerce("search_lang", data["search_lang"])
        choice = data.get("api_format")
        if choice is not None and choice not in SETTINGS["api_format"].choices:
            known = ", ".join(SETTINGS["api_format"].choices)
            raise UsageError(f"the provider must be one of {known}", setting="api_format")
        if data.get("base_url"):
            data["base_url"] = check_endpoint(data["base_url"])
        self.text.write(json.dumps(data))
