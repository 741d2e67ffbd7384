"""Evidence packs: one file holding a run's answer, the text of every cited source exactly as
the citation check read it, the checker's version and threshold, and a manifest of SHA-256
hashes, optionally signed with Ed25519 — so anyone can re-check the answer offline, with no
session store and no trust in the machine that made it.

check.py   the citation check on a pack's texts (the run's own `pipeline.cite.verify`)
layout.py  the pack's files, JSON encoding, the manifest
build.py   a saved session -> pack bytes
sign.py    Ed25519 signing keys under SLEUTH_HOME, signing and checking a manifest
read.py    pack bytes -> its files, refusing what a pack cannot be (sizes, names, duplicates)
verify.py  a pack -> a report: hashes, signature, and each sentence's support re-checked

The format is specified for third-party verifiers in docs/evidence-pack.md.
"""
