"""Local storage: saved sessions (SQLite under SLEUTH_HOME)."""

from .records import SessionRecord, SessionStats, SessionSummary, new_session_id, normalize_tags
from .sessions import SessionStore, sessions_db_path

__all__ = [
    "SessionRecord",
    "SessionStats",
    "SessionStore",
    "SessionSummary",
    "new_session_id",
    "normalize_tags",
    "sessions_db_path",
]
