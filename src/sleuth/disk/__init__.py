"""Files on the user's disk, treated as untrusted: regular-file reads with caps (`read`) and
SQLite databases that may be missing, damaged, or not files at all (`sqlite`).

The bottom layer: it depends on `sleuth.errors` only, so settings, stores and adapters can all
use it.
"""
