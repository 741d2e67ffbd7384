"""Write src/sleuth/pipeline/common_words.txt: the English words common enough that a passage
not saying one is no sign it is about something else (`terms.slight`).

    .venv-train/bin/pip install wordfreq && .venv-train/bin/python training/words/common_words.py

The words are wordfreq's (https://github.com/rspeer/wordfreq) English list down to a Zipf
frequency of ZIPF: about once in every 100,000 words of general text. wordfreq's data is
licensed CC BY-SA 4.0, and so is this list derived from it. Only alphabetic words of two or
more letters are kept (numbers are never slight), and no name: wordfreq's words are lower case,
so the names among them (NAMES: months, days, places, peoples, languages, people's first
names, titles, compass points that open place names) are left out by this list, not guessed.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import wordfreq

ZIPF = 5.0
NAMES = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday christmas easter
    america american americans australia british britain california canada china chinese
    england english europe european france french germany german india indian ireland irish
    italy italian japan japanese london mexico paris russia russian scotland spain texas
    washington york
    david george james john michael paul peter mary
    mr mrs dr st sir lord god ii
    north south east west western eastern northern southern central""".split()
)
OUT = Path(__file__).resolve().parents[2] / "src" / "sleuth" / "pipeline" / "common_words.txt"
HEADER = f"""\
# English words with a Zipf frequency of at least {ZIPF} (wordfreq {version("wordfreq")}).
# Derived from wordfreq's data, https://github.com/rspeer/wordfreq, licensed CC BY-SA 4.0
# (https://creativecommons.org/licenses/by-sa/4.0/); this list is under the same licence.
# Written by training/words/common_words.py.
"""


def main() -> None:
    words = [
        w
        for w in wordfreq.top_n_list("en", 5000)
        if w.isascii()
        and w.isalpha()
        and len(w) > 1
        and w not in NAMES
        and wordfreq.zipf_frequency(w, "en") >= ZIPF
    ]
    OUT.write_text(HEADER + "\n".join(sorted(words)) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {OUT}")


if __name__ == "__main__":
    main()
