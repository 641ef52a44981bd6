"""The gateway's side of the lobby: HTTP bodies validated into the lobby's request models
(requests) and the round trip over ``lobby:rpc`` (rpc)."""
