"""Protocol versions. A message's ``v`` must be one of KNOWN_PROTOCOL_VERSIONS.

Version 2: a ``commit`` frame carries its opening sealed to the escrow (``sealed``)
instead of in clear (``choice``, ``nonce``); a commit below SEALED_COMMIT_VERSION is refused
with message/unsupported_version. Other frames are unchanged and still accepted as version 1.

Version 3 (fewer frames): a ``watch`` sent with ``v`` >= COMBINED_FRAMES_VERSION
gets, for that game, ONE ``view`` frame per state change whose ``records`` field carries the
public record entries written up to that state change (no separate ``record`` frame for them),
and the record entries that belong to no view (another seat's commitment, the escrow's close)
as ``records`` frames, several entries each. A watch below version 3 gets exactly the frames
it got before: one ``view`` per state change and one ``record`` per entry.
"""

PROTOCOL_VERSION = 3
KNOWN_PROTOCOL_VERSIONS: tuple[int, ...] = (1, 2, 3)
SEALED_COMMIT_VERSION = 2
COMBINED_FRAMES_VERSION = 3


def is_version_at_least(version: int, minimum: int) -> bool:
    return version in KNOWN_PROTOCOL_VERSIONS and version >= minimum
