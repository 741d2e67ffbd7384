"""The engine: one research run at a time per `Run`, many runs at once per process.

engine.py   Engine.run(request) -> events; validation; the emitter and task ownership
run.py      Run (per-run state: gathered evidence, deadline, tasks) and Parts (its adapters)
quick.py    the quick flow: search → read → (hop) → write → (follow-up) → check
deep.py     the deep flow: plan → rounds of search → read → write → critic
"""

from .engine import Engine, new_run_id
from .run import Parts, Stages

__all__ = ["Engine", "Parts", "Stages", "new_run_id"]
