"""Real PDF documents for the test web, made with fpdf2.

Importing fpdf2 costs most of a second, so the bytes are built on first use (the server warms them
up in a background thread at start) and cached; the text is plain data so the search index can be
built without it.
"""

from __future__ import annotations

import threading
from functools import cache

SP800_92_URL = "http://www.nist.gov/pubs/sp800-92.pdf"
SP800_92_TITLE = "Guide to Computer Security Log Management (NIST SP 800-92)"
SP800_92_PAGES = (
    (
        "1. Introduction to log management",
        "A log is a record of the events occurring within an organization's systems and networks. "
        "Logs are composed of log entries; each entry contains information related to a specific "
        "event that has occurred within a system or network. Many logs within an organization "
        "contain records related to computer security, such as audit logs that track user "
        "authentication attempts and security device logs that record possible attacks. "
        "Log management is the process for generating, transmitting, storing, analyzing, and "
        "disposing of computer security log data. Routine log analysis helps identify security "
        "incidents, policy violations, fraudulent activity, and operational problems.",
    ),
    (
        "2. Log retention and storage",
        "Organizations should define log retention periods in their policies, taking into account "
        "legal requirements, the needs of incident investigations, and available storage. Log "
        "rotation closes a log file and opens a new one when the first file is considered "
        "complete, for example every hour or when it reaches a size limit. Log archival keeps "
        "logs for a longer period, either as part of routine retention or as preservation for an "
        "investigation or legal hold. Logs that are no longer needed should be destroyed in a "
        "controlled way, consistent with the retention policy.",
    ),
    (
        "3. Protecting and analyzing logs",
        "Because logs contain records of system and network security, they need to be protected "
        "from breaches of their confidentiality and integrity. Organizations should limit access "
        "to log files, avoid recording unneeded sensitive data, and protect archived logs. Clocks "
        "on all hosts should be synchronized to a common time source so that entries from "
        "different systems can be correlated. Analysts should review high-priority log entries "
        "daily and use automated tools to filter, aggregate, and correlate events from many "
        "sources.",
    ),
)

WHITEPAPER_URL = "http://files.examplecloud.com/whitepapers/audit-logging.pdf"
WHITEPAPER_TITLE = "Example Cloud Audit Logging Whitepaper"
WHITEPAPER_PAGES = (
    (
        "Audit logging in Example Cloud",
        "Every administrative action in an Example Cloud organization produces an audit log "
        "entry that records the actor, the action, the affected resource, and the time. Audit "
        "logs are retained for 90 days by default. Enterprise customers can extend retention to "
        "365 days, and any customer can export entries to their own storage bucket to keep them "
        "longer.",
    ),
)

# Held while building, so a request arriving during the warm-up waits for it instead of
# building the same document a second time.
_lock = threading.Lock()


def pdf_text(pages: tuple[tuple[str, str], ...]) -> str:
    return "\n".join(f"{heading}\n{body}" for heading, body in pages)


def sp800_92_pdf() -> bytes:
    with _lock:
        return _render(SP800_92_TITLE, SP800_92_PAGES)


def whitepaper_pdf() -> bytes:
    with _lock:
        return _render(WHITEPAPER_TITLE, WHITEPAPER_PAGES)


def warm_up() -> None:
    sp800_92_pdf()
    whitepaper_pdf()


@cache
def _render(title: str, pages: tuple[tuple[str, str], ...]) -> bytes:
    from fpdf import FPDF  # imported here: it is slow to import and most tests never need it

    pdf = FPDF()
    pdf.set_title(title)
    for heading, body in pages:
        pdf.add_page()
        pdf.set_font("helvetica", style="B", size=14)
        pdf.multi_cell(0, 8, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)
        pdf.set_font("helvetica", size=11)
        pdf.multi_cell(0, 6, body, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())
