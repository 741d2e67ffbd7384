"""Evaluate Sleuth on a questions file: `sleuth eval` and `make bench` share this package.

`questions` loads and validates the JSONL, `corpus_web` serves a DOCS.jsonl as an offline web,
`runner` runs research over the questions, `score` turns results into rates with Wilson
intervals, and `report` renders the table, JSON and markdown.
"""
