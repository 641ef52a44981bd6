import socket

import uvicorn

from shared.runtime.settings import get_settings

s = get_settings()
config = uvicorn.Config("services.gateway.app:app", host=s.host, port=s.port, loop="uvloop",
                        log_level="warning", ws_max_size=s.max_message_bytes * 4,
                        proxy_headers=True)
# replicas on one host share the port (SO_REUSEPORT: the kernel spreads the connections)
sock = socket.socket(socket.AF_INET6 if ":" in s.host else socket.AF_INET, socket.SOCK_STREAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
if hasattr(socket, "SO_REUSEPORT"):
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
sock.bind((s.host, s.port))
uvicorn.Server(config).run(sockets=[sock])
