"""Language tags (BCP 47, as far as search services take them): an ISO 639-1 language, an
optional ISO 15924 script and an optional ISO 3166-1 region — `de`, `en-GB`, `zh-Hant-TW`.

One parser for every face (a flag, a config key, a JSON field) and every search backend, which
maps the parsed tag onto its own documented language or region parameter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# ISO 639-1: every two-letter language code.
ISO_639_1 = frozenset(
    """aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv
    cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr
    ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw
    ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv
    ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr
    ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi
    yo za zh zu""".split()
)
_TAG = re.compile(
    r"^(?P<language>[A-Za-z]{2})(?:[-_](?P<script>[A-Za-z]{4}))?"
    r"(?:[-_](?P<region>[A-Za-z]{2}|\d{3}))?$"
)
EXAMPLES = "de, fr, en-GB, pt-BR, zh-Hant"


@dataclass(frozen=True, slots=True)
class LangTag:
    language: str  # ISO 639-1, lower case: "en"
    script: str | None = None  # ISO 15924, title case: "Hant"
    region: str | None = None  # ISO 3166-1 alpha-2 upper case ("GB"), or UN M.49 digits

    def __str__(self) -> str:
        return "-".join(p for p in (self.language, self.script, self.region) if p)

    @property
    def country(self) -> str | None:
        """The region when it is a country code (not a UN M.49 area like 419)."""
        return self.region if self.region and self.region.isalpha() else None


def parse_tag(text: str) -> LangTag:
    """`text` as a language tag in canonical case; ValueError names what is wrong."""
    match = _TAG.match(text.strip())
    if not match:
        raise ValueError(
            f"{text.strip()[:40]!r} is not a language code; use an ISO 639-1 code, optionally "
            f"with a script and region ({EXAMPLES})"
        )
    language = match["language"].lower()
    if language not in ISO_639_1:
        raise ValueError(
            f"{language!r} is not an ISO 639-1 language code (two letters, e.g. {EXAMPLES})"
        )
    script = match["script"].title() if match["script"] else None
    region = match["region"].upper() if match["region"] else None
    return LangTag(language, script, region)


def is_tag(text: str) -> bool:
    try:
        parse_tag(text)
    except ValueError:
        return False
    return True
