"""escrow: simultaneous secret choices, hidden from everyone until every seat committed."""
