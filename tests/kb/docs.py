"""A folder of small documents, one of each type the knowledge base reads, made in the test.

Each holds facts no other file has, so a test can tell which document (and which page, slide
or row) an answer came from: the Quasar plan's price is only in the DOCX table, glorbium's
boiling point only on page 3 of the PDF.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import docx
import fpdf
import openpyxl
import pptx

DOCX_FACT = "Quasar"  # row of the DOCX table: Quasar costs 37 zorkmids a month
PDF_FACT = "glorbium"  # page 3 of the PDF: glorbium boils at 412 kelvin

PDF_PAGES = (
    "Field notes, page one. The survey team arrived at the northern station in spring and "
    "logged weather observations every morning for the whole season.",
    "Field notes, page two. Samples were sealed in glass and shipped south for analysis by "
    "the laboratory at the coastal institute.",
    "Field notes, page three. The laboratory reported that glorbium boils at 412 kelvin under "
    "standard pressure, far above any other sample measured that year.",
)


def write_pdf(path: Path, pages: tuple[str, ...] = PDF_PAGES, password: str | None = None) -> Path:
    pdf = fpdf.FPDF()
    pdf.set_font("helvetica", size=12)
    pdf.set_title("Northern station field notes")
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 8, text)
    if password is not None:
        pdf.set_encryption(owner_password="owner-" + password, user_password=password)
    pdf.output(str(path))
    return path


def write_docx(path: Path) -> Path:
    document = docx.Document()
    document.add_heading("Subscription plans", level=1)
    document.add_paragraph("Our plans differ in price and storage. The table lists each one.")
    table = document.add_table(rows=1, cols=3)
    for cell, text in zip(table.rows[0].cells, ("Plan", "Monthly price", "Storage"), strict=True):
        cell.text = text
    for row in (("Nebula", "12 zorkmids", "1 TB"), ("Quasar", "37 zorkmids", "9 TB")):
        cells = table.add_row().cells
        for cell, text in zip(cells, row, strict=True):
            cell.text = text
    document.add_heading("Support", level=1)
    document.add_paragraph("Support answers within one working day on every plan.")
    document.save(str(path))
    return path


def write_pptx(path: Path) -> Path:
    deck = pptx.Presentation()
    for title, body in (
        ("Quarterly review", "Revenue grew in every region this quarter."),
        ("Hiring", "The Lisbon office will hire eleven engineers next year."),
    ):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    deck.save(str(path))
    return path


def write_xlsx(path: Path) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Prices"
    sheet.append(["Fruit", "Price per kilo", "Origin"])
    sheet.append(["Durian", 14, "Thailand"])
    sheet.append(["Mangosteen", 9, "Malaysia"])
    book.save(str(path))
    return path


def write_epub(path: Path) -> Path:
    container = (
        '<?xml version="1.0"?><container version="1.0" '
        'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
        '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
        "</rootfiles></container>"
    )
    opf = (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>The Lighthouse Keeper'
        '</dc:title></metadata><manifest><item id="c1" href="one.xhtml" '
        'media-type="application/xhtml+xml"/><item id="c2" href="two.xhtml" '
        'media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/>'
        '<itemref idref="c2"/></spine></package>'
    )
    chapter = "<html><body><h1>{0}</h1><p>{1}</p></body></html>"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/container.xml", container)
        archive.writestr("OEBPS/content.opf", opf)
        archive.writestr(
            "OEBPS/one.xhtml", chapter.format("Arrival", "The keeper arrived on a grey morning.")
        )
        archive.writestr(
            "OEBPS/two.xhtml",
            chapter.format("The storm", "The lamp burned for nine nights during the storm."),
        )
    return path


def make_folder(folder: Path) -> dict[str, Path]:
    """One file of each supported type; returns them by type."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "pdf": write_pdf(folder / "field-notes.pdf"),
        "docx": write_docx(folder / "plans.docx"),
        "pptx": write_pptx(folder / "review.pptx"),
        "xlsx": write_xlsx(folder / "fruit.xlsx"),
        "epub": write_epub(folder / "lighthouse.epub"),
    }
    texts = {
        "csv": (
            "cities.csv",
            "City,Population,Country\nTromsø,77000,Norway\nOulu,210000,Finland\n",
        ),
        "html": (
            "recipe.html",
            "<!doctype html><html><head><title>Barley soup</title></head><body><nav>Home</nav>"
            "<article><h1>Barley soup</h1><p>Simmer the barley for forty minutes before adding"
            " the leeks, then season with thyme and a little salt.</p></article></body></html>",
        ),
        "markdown": (
            "garden.md",
            "# Garden log\n\nThe tomatoes were planted on the ninth of May.\n",
        ),
        "text": ("bikes.txt", "The bicycle shed holds fourteen bicycles and two cargo bikes.\n"),
    }
    for kind, (name, content) in texts.items():
        files[kind] = folder / name
        files[kind].write_text(content, encoding="utf-8")
    return files


def make_bad_files(folder: Path) -> dict[str, Path]:
    """A corrupt PDF, an encrypted PDF, a 0-byte file and a PDF renamed .docx."""
    folder.mkdir(parents=True, exist_ok=True)
    corrupt = folder / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.7\n" + b"\x8f garbage that is not a PDF body " * 20)
    empty = folder / "empty.txt"
    empty.write_bytes(b"")
    renamed = folder / "really-a-pdf.docx"
    renamed.write_bytes(write_pdf(folder / "tmp.pdf").read_bytes())
    (folder / "tmp.pdf").unlink()
    return {
        "corrupt": corrupt,
        "encrypted": write_pdf(folder / "locked.pdf", password="s3cret"),
        "empty": empty,
        "renamed": renamed,
    }
