from .engine import Engine, Stages

__all__ = ["Engine", "Stages"]
