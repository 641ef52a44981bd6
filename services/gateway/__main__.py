from shared.runtime.startup import refuse_unsafe

refuse_unsafe("gateway")  # before anything connects: placeholder secrets, plaintext (exit 78)

from services.gateway.app import serve  # noqa: E402

serve()
