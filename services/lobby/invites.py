"""A table's invite link: the page's address with the invite code in its fragment
(``<page>/#/join/<invite>``). The page keeps the code while its visitor signs in, then joins
that table (clients/web/invite.js). The link rides beside the code, so it is shown exactly
to whom the code is: the host and the seated players (services/lobby/tables.py for_viewer)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote


def link(page_address: str, invite: str) -> str:
    return f"{page_address.rstrip('/')}/#/join/{quote(invite, safe='')}"


def with_link(doc: dict[str, Any], page_address: str) -> dict[str, Any]:
    """The viewer's table document with ``invite_url`` when it shows the invite."""
    code = doc.get("invite")
    if isinstance(code, str) and code:
        return {**doc, "invite_url": link(page_address, code)}
    return doc
