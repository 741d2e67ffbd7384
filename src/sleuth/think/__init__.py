"""The thinking stages: model-backed when an LLM is configured, deterministic otherwise.

plan.py        planner (deep sub-queries) and critic (what is missing after a round)
hops.py        two-step triage and the bridge entity named by pages already read
structured.py  filling a JSON Schema from the sources, validated and repaired once
"""
