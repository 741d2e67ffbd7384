"""What a converter makes of a local file: a document in citable sections.

A section is the unit a citation can point at: a PDF page, a slide, a run of spreadsheet rows
(each row keeping its header), a DOCX table or the text under a heading. Search finds passages;
what reaches the writer is the section holding them, so an answer cites "p. 3", not a file.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Section:
    location: str  # "p. 3", "slide 2", "sheet Prices, rows 2–40"; "" when the file is one piece
    text: str
    anchor: str = ""  # URL fragment naming the section ("page=3"), "" for none


@dataclass(frozen=True, slots=True)
class Document:
    title: str
    kind: str  # a key of convert.CONVERTERS: "pdf", "docx", "csv", ...
    sections: tuple[Section, ...]
    published: str | None = None

    @property
    def chars(self) -> int:
        return sum(len(s.text) for s in self.sections)


def nonempty(sections: list[Section] | tuple[Section, ...]) -> tuple[Section, ...]:
    return tuple(s for s in sections if s.text.strip())
