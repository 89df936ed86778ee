"""The SQLite store: conversations, messages, records and every other row.

Only this package speaks SQL or imports ``sqlite3``; everything else asks it.
"""

from app.core.store.database import (
    STORE_FAILURES,
    Conversation,
    Store,
    StoredMessage,
    StoredRecord,
    StoreError,
)

__all__ = [
    "STORE_FAILURES",
    "Conversation",
    "Store",
    "StoreError",
    "StoredMessage",
    "StoredRecord",
]
