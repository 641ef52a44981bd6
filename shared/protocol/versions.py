"""Protocol versions. A message's ``v`` must be one of KNOWN_PROTOCOL_VERSIONS."""

PROTOCOL_VERSION = 1
KNOWN_PROTOCOL_VERSIONS: tuple[int, ...] = (1,)


def is_version_at_least(version: int, minimum: int) -> bool:
    return version in KNOWN_PROTOCOL_VERSIONS and version >= minimum
