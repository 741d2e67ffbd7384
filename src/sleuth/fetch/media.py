"""Images of a read page: which ones a report may show, and what an image download must be.

While a page is extracted, its `<img>` elements (and the `<figcaption>` of the `<figure>` they
sit in) become `PageImage`s — only those with words of their own (alt text or a caption), none
from navigation, site headers, footers or sidebars, none that declare themselves icon-sized, at most
`MAX_PAGE_IMAGES` a page. A download is accepted only as one of the raster types in
`IMAGE_TYPES` whose first bytes agree with the declared type: SVG is refused (it is a document
that can carry scripts and links), and so is anything else a server calls an image.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..types import PageImage

MAX_PAGE_IMAGES = 12  # images kept from one page
MAX_IMAGE_WORDS_CHARS = 300  # alt text or a caption is cut here
MIN_MEANINGFUL_WORDS = 2  # alt text or a caption with fewer words says nothing
MIN_SIDE_PX = 48  # declared width or height below this: an icon, a spacer, a tracking pixel
# The media types a downloaded image may be, each with how its bytes start.
IMAGE_TYPES: dict[str, tuple[bytes, ...]] = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),  # and "WEBP" at offset 8, checked below
}
_CHROME = frozenset({"nav", "footer", "aside", "form", "noscript", "template"})
_CONTENT = frozenset({"article", "main"})  # a <header> inside these is the article's own
_JUNK_WORDS = re.compile(
    r"^(?:image|picture|photo|img|logo|icon|avatar|banner|spacer|placeholder|thumbnail|"
    r"advertisement|ad|button)\b|\.(?:png|jpe?g|gif|webp|svg)$",
    re.IGNORECASE,
)


def page_images(tree: Any, base_url: str) -> tuple[PageImage, ...]:
    """The images of a parsed page a report may show, in page order."""
    if tree is None:
        return ()
    found: dict[str, PageImage] = {}
    for element in tree.iter("img"):
        image = _image(element, base_url)
        if image is not None and image.url not in found:
            found[image.url] = image
            if len(found) >= MAX_PAGE_IMAGES:
                break
    return tuple(found.values())


def _image(element: Any, base_url: str) -> PageImage | None:
    if _in_chrome(element) or _icon_sized(element):
        return None
    url = _source_url(element, base_url)
    if url is None:
        return None
    alt = _meaningful(element.get("alt") or "")
    caption = _meaningful(_caption(element))
    if not alt and not caption:
        return None
    return PageImage(url, alt, caption)


def _source_url(element: Any, base_url: str) -> str | None:
    """The image's absolute http(s) URL: `src`, a lazy loader's `data-src` when `src` is an
    inline placeholder, else the first candidate of `srcset`."""
    for attribute in ("src", "data-src", "srcset"):
        raw = str(element.get(attribute) or "").strip()
        if attribute == "srcset":
            raw = raw.split(",", 1)[0].strip().split(" ", 1)[0]
        if not raw or raw.startswith("data:"):
            continue
        url = urljoin(base_url, raw)
        if urlsplit(url).scheme in ("http", "https"):
            return url
    return None


def _in_chrome(element: Any) -> bool:
    """Inside navigation, a footer, a sidebar or a form, or a site header (not an article's
    own header, where a lead image lives)."""
    tags = [parent.tag for parent in element.iterancestors()]
    if any(tag in _CHROME for tag in tags):
        return True
    return "header" in tags and not any(tag in _CONTENT for tag in tags)


def _icon_sized(element: Any) -> bool:
    for attribute in ("width", "height"):
        value = (element.get(attribute) or "").strip().removesuffix("px")
        if value.isdigit() and int(value) < MIN_SIDE_PX:
            return True
    return False


def _caption(element: Any) -> str:
    figure = next((p for p in element.iterancestors() if p.tag == "figure"), None)
    if figure is None:
        return ""
    caption = figure.find(".//figcaption")
    return str(caption.text_content()) if caption is not None else ""


def _meaningful(text: str) -> str:
    words = " ".join(text.split())
    if len(words.split()) < MIN_MEANINGFUL_WORDS or _JUNK_WORDS.search(words):
        return ""
    return words[:MAX_IMAGE_WORDS_CHARS]


def image_type(declared: str, head: bytes) -> str | None:
    """The media type of an image download whose declared type is one of `IMAGE_TYPES` and
    whose first bytes agree with it; None for anything else."""
    starts = IMAGE_TYPES.get(declared)
    if starts is None or not any(head.startswith(s) for s in starts):
        return None
    if declared == "image/webp" and head[8:12] != b"WEBP":
        return None
    return declared
