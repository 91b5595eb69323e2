"""The exceptions Cairn raises. Every one is a :class:`cairn.Error`; the native module raises
them by name (python/src/error.rs), with the attributes documented on each class."""

from __future__ import annotations

from typing import List, Optional, Tuple

__all__ = [
    "Error",
    "QueryError",
    "DatabaseError",
    "DatabaseNotFoundError",
    "DatabaseLockedError",
    "ReadOnlyError",
    "WriterBusyError",
    "ClosedError",
    "InvalidInputError",
    "ImportDataError",
    "TransactionError",
    "AskError",
]


class Error(Exception):
    """Base class of every error Cairn raises. ``message`` is the text without details."""

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.message = message
        for name, value in details.items():
            setattr(self, name, value)


class QueryError(Error, ValueError):
    """A statement that does not parse or does not fit the schema.

    Attributes: ``code`` (stable, e.g. ``"query::syntax"``, ``"query::unknown_name"``),
    ``help`` (what to write instead, or ``None``), and where the statement is wrong:
    ``position`` and ``end`` (character offsets into ``statement``), ``line`` and ``column``
    (1-based), and ``rendered``, the statement with a caret under the place.
    """

    code: str = "query::syntax"
    help: Optional[str] = None
    statement: Optional[str] = None
    position: Optional[int] = None
    end: Optional[int] = None
    line: Optional[int] = None
    column: Optional[int] = None
    rendered: Optional[str] = None

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        return f"{self.message} (line {self.line}, column {self.column})"


class DatabaseError(Error):
    """The database cannot do what was asked: corrupt, of a newer format, disk full, …"""


class DatabaseNotFoundError(DatabaseError, FileNotFoundError):
    """No database at the path (opened read-only, or with ``create=False``)."""


class DatabaseLockedError(DatabaseError):
    """Another process holds the database for writing: open it with ``read_only=True``."""


class ReadOnlyError(DatabaseError):
    """A write on a database opened read-only."""


class WriterBusyError(DatabaseError):
    """The single writer is held: by this thread's open transaction (write through it), or by
    another thread for longer than the transaction's ``wait``."""


class ClosedError(Error):
    """A call on a closed database or a finished transaction."""


class InvalidInputError(Error, ValueError):
    """A value or name the database refuses: an unknown relation, a node that does not exist,
    an empty label, …"""


class ImportDataError(Error, ValueError):
    """Bad dump data; nothing was imported. ``lines`` holds (file, line, reason) for each bad
    line found (``file`` is ``"<records>"`` for in-memory records)."""

    lines: List[Tuple[str, int, str]] = []


class TransactionError(Error):
    """A statement a transaction cannot hold, or a transaction that could not run."""


class AskError(Error):
    """ASK failed: the question could not be planned, or the LLM backend failed."""
