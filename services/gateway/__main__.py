import socket

from shared.runtime.startup import refuse_unsafe

refuse_unsafe("gateway")  # before anything connects: placeholder secrets, plaintext (exit 78)

from services.gateway.app import create_app  # noqa: E402
from services.gateway.edge.limits import get_limits  # noqa: E402
from services.gateway.edge.server import DrainingServer, config, raise_nofile  # noqa: E402
from shared.runtime.settings import get_settings  # noqa: E402

s = get_settings()
raise_nofile()  # the soft descriptor limit up to the hard one: the connection cap follows it
# uvicorn with the guards against slow and hostile clients (services/gateway/edge/server.py)
app = create_app(s)
# a connection from an address already over its HTTP rate is answered 429 before any parsing
cfg = config(s, get_limits(), app, early=app.state.gateway.quotas.http_refused_now)
# replicas on one host share the port (SO_REUSEPORT: the kernel spreads the connections)
sock = socket.socket(socket.AF_INET6 if ":" in s.host else socket.AF_INET, socket.SOCK_STREAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
if hasattr(socket, "SO_REUSEPORT"):
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
sock.bind((s.host, s.port))
DrainingServer(cfg, s.drain_s, app.state.gateway.hub).run(sockets=[sock])
