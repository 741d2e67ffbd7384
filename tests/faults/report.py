"""The soak report (`make soak` names it in SLEUTH_SOAK_REPORT): each test module writes its
own section; the first section written in a pytest run starts the file, later ones append."""

from __future__ import annotations

from pathlib import Path

_started: set[Path] = set()


def write_section(path: Path, lines: list[str]) -> None:
    path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines).rstrip("\n") + "\n"
    if path in _started:
        with path.open("a") as report:
            report.write("\n" + text)
    else:
        path.write_text(text)
        _started.add(path)
