"""EPUB to one section per chapter, with the standard library and the HTML extractor.

An EPUB is a zip: `META-INF/container.xml` names the package file, whose spine lists the
chapters in reading order. That is all a reader needs, so no EPUB library is installed.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from xml.etree import ElementTree

from ..errors import UnreadableFile
from .documents import Document, Section, nonempty

_NS = {
    "c": "urn:oasis:names:tc:opendocument:xmlns:container",
    "opf": "http://www.idpf.org/2007/opf",
    "dc": "http://purl.org/dc/elements/1.1/",
}


def convert_epub(data: bytes, name: str) -> Document:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            package_path = _package_path(archive)
            package = ElementTree.fromstring(archive.read(package_path))
            chapters = [archive.read(p) for p in _spine(package, package_path)]
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError, OSError) as exc:
        raise UnreadableFile(f"unreadable EPUB: {exc}") from exc
    sections = [
        Section(f"chapter {n}", _chapter_text(html), f"chapter={n}")
        for n, html in enumerate(chapters, 1)
    ]
    title = package.findtext(".//dc:title", default="", namespaces=_NS).strip()
    return Document(title or name, "epub", nonempty(sections))


def _package_path(archive: zipfile.ZipFile) -> str:
    container = ElementTree.fromstring(archive.read("META-INF/container.xml"))
    rootfile = container.find(".//c:rootfile", _NS)
    if rootfile is None or not rootfile.get("full-path"):
        raise KeyError("no package file in META-INF/container.xml")
    return str(rootfile.get("full-path"))


def _spine(package: ElementTree.Element, package_path: str) -> list[str]:
    base = posixpath.dirname(package_path)
    items = {
        item.get("id"): item.get("href", "")
        for item in package.iterfind(".//opf:manifest/opf:item", _NS)
    }
    refs = [ref.get("idref") for ref in package.iterfind(".//opf:spine/opf:itemref", _NS)]
    return [posixpath.join(base, items[r]) for r in refs if items.get(r)]


def _chapter_text(html: bytes) -> str:
    from ..fetch.extract import extract_html

    return extract_html(html.decode("utf-8", errors="replace"), "file:///chapter.xhtml").text
