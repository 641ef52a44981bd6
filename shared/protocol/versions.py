"""Protocol versions. A message's ``v`` must be one of KNOWN_PROTOCOL_VERSIONS.

Version 2 (issue 20): a ``commit`` frame carries its opening sealed to the escrow (``sealed``)
instead of in clear (``choice``, ``nonce``); a commit below SEALED_COMMIT_VERSION is refused
with message/unsupported_version. Other frames are unchanged and still accepted as version 1.
"""

PROTOCOL_VERSION = 2
KNOWN_PROTOCOL_VERSIONS: tuple[int, ...] = (1, 2)
SEALED_COMMIT_VERSION = 2


def is_version_at_least(version: int, minimum: int) -> bool:
    return version in KNOWN_PROTOCOL_VERSIONS and version >= minimum
