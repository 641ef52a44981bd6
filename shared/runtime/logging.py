"""structlog configured once: JSON lines (or console on a TTY), with game and seat bound by
the handlers through ``bound_contextvars``. Never log openings, states or views.

Every line is JSON, the standard library's too: the root logger's one handler formats records
of ``logging`` users (uvicorn, asyncio, redis-py, faststream's own) through structlog's
``ProcessorFormatter`` with the same processors, so an operator's log pipeline parses one
format. The service name is on every line."""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog


def _processors(service: str) -> list[Any]:
    def add_service(_: Any, __: str, event: dict[str, Any]) -> dict[str, Any]:
        event.setdefault("service", service)
        return event

    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        add_service,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]


def configure_logging(service: str, level: str = "INFO", json: bool = True) -> Any:
    renderer: Any = (structlog.processors.JSONRenderer() if json or not sys.stderr.isatty()
                     else structlog.dev.ConsoleRenderer())
    shared = _processors(service)
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping().get(level.upper(), logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name,
                           structlog.stdlib.ExtraAdder()],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info, renderer]))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "faststream"):
        lg = logging.getLogger(name)
        lg.handlers[:] = []  # uvicorn's own plain-text handlers: records go to the root's
        lg.propagate = True
    return structlog.get_logger(service=service)
