"""The only code that touches the world: the physical implementations behind the seams.

Each sub-package implements one `toolwire.seams` protocol; `toolwire.backends.kv` holds the
key-value stores (memory, SQLite, Redis, PostgreSQL).
"""
