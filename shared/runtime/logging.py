"""structlog configured once: JSON lines (or console on a TTY), with game and seat bound by
the handlers through ``bound_contextvars``. Never log openings, states or views."""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog


def configure_logging(service: str, level: str = "INFO", json: bool = True) -> Any:
    renderer: Any = (structlog.processors.JSONRenderer() if json or not sys.stderr.isatty()
                     else structlog.dev.ConsoleRenderer())
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping().get(level.upper(), logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    return structlog.get_logger(service=service)
