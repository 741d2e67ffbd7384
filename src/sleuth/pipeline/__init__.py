"""The stages of a run, in the order they happen; each a typed function of its inputs.

gather.py      a round: search (included files, the web, the fallback) → choose candidates
               → domain lists → read → keep (drop stale pages and near-duplicates)
candidates.py  fuse result lists (reciprocal rank), cap places per site
trust.py       authority tiers and ordering, aggregate source trust
read.py        read candidates in parallel under the round's deadlines
dedupe.py      word 5-gram near-duplicate detection
evidence.py    split read pages into passages, rank them, number the sources
write/         the writers (extractive, LLM) and the driver that streams them
cite.py        citation markers: normalize, verify against sources, quote
answer.py      after the writer: clean, enforce and check citations, grade confidence
"""
