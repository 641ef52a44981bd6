"""The wire contract: pydantic models and constants only (no I/O)."""
