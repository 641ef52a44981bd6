import uvicorn

from shared.runtime.settings import get_settings

s = get_settings()
uvicorn.run("services.gateway.app:app", host=s.host, port=s.port, loop="uvloop",
            log_level="warning", ws_max_size=s.max_message_bytes * 4, proxy_headers=True)
