"""A raw WebSocket client over a plain socket, for attacker-style tests: it can shrink its
receive buffer (SO_RCVBUF) before connecting, bind another loopback source address, send
hand-made frames (invalid UTF-8, binary) and stop reading whenever it likes. Blocking calls:
run them with ``asyncio.to_thread``."""

from __future__ import annotations

import base64
import os
import socket
import struct
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

TEXT, BINARY, CLOSE, PING, PONG = 0x1, 0x2, 0x8, 0x9, 0xA


class Closed(Exception):
    """The peer ended the stream without a close frame (EOF or reset)."""


@dataclass
class RawWs:
    url: str  # http://host:port
    token: str
    rcvbuf: int | None = None
    source: str | None = None  # local address to bind, e.g. "127.0.0.2"
    headers: dict[str, str] = field(default_factory=dict)
    sock: socket.socket | None = None
    _buf: bytearray = field(default_factory=bytearray)
    status: int = 0  # of the handshake

    def connect(self, timeout: float = 10.0) -> RawWs:
        u = urlsplit(self.url)
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if self.rcvbuf is not None:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.rcvbuf)
        if self.source is not None:
            s.bind((self.source, 0))
        s.settimeout(timeout)
        s.connect((u.hostname or "127.0.0.1", u.port or 80))
        key = base64.b64encode(os.urandom(16)).decode()
        extra = "".join(f"{k}: {v}\r\n" for k, v in self.headers.items())
        # the token in the subprotocol offer, never in the URL (docs/protocol.md section 2)
        s.sendall((f"GET /ws HTTP/1.1\r\nHost: {u.netloc}\r\n"
                   f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                   f"Sec-WebSocket-Protocol: empire.v1, empire.token.{self.token}\r\n"
                   f"Sec-WebSocket-Version: 13\r\n{extra}\r\n").encode())
        while b"\r\n\r\n" not in self._buf:
            chunk = s.recv(4096)
            if not chunk:
                raise Closed("EOF during the handshake")
            self._buf += chunk
        head, _, rest = bytes(self._buf).partition(b"\r\n\r\n")
        self._buf = bytearray(rest)
        self.status = int(head.split(b" ", 2)[1])
        self.sock = s
        return self

    def send(self, payload: bytes | str, opcode: int = TEXT) -> None:
        assert self.sock is not None
        data = payload.encode() if isinstance(payload, str) else payload
        mask = os.urandom(4)
        n = len(data)
        if n < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 1 << 16:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(head + mask + masked)

    def _read_exact(self, n: int, deadline: float) -> bytes:
        assert self.sock is not None
        while len(self._buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no frame in time")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError as exc:
                raise Closed("reset") from exc
            if not chunk:
                raise Closed("EOF")
            self._buf += chunk
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def recv(self, timeout: float = 10.0) -> tuple[int, bytes]:
        """The next frame (opcode, payload); pings are answered, not returned."""
        deadline = time.monotonic() + timeout
        while True:
            b0, b1 = self._read_exact(2, deadline)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read_exact(2, deadline))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read_exact(8, deadline))[0]
            payload = self._read_exact(n, deadline)
            opcode = b0 & 0x0F
            if opcode == PING:
                self.send(payload, PONG)
                continue
            return opcode, payload

    def recv_text(self, timeout: float = 10.0) -> str:
        op, data = self.recv(timeout)
        if op == CLOSE:
            raise Closed(f"close frame {close_code(data)}")
        return data.decode()

    def drain_until_close(self, timeout: float = 30.0) -> tuple[int | None, str, int]:
        """Read everything the server buffered: (close code or None, reason, frames before
        it). None: the stream ended without a close frame."""
        frames = 0
        deadline = time.monotonic() + timeout
        try:
            while True:
                op, data = self.recv(max(0.01, deadline - time.monotonic()))
                if op == CLOSE:
                    return close_code(data), data[2:].decode(errors="replace"), frames
                frames += 1
        except (Closed, TimeoutError, OSError):
            return None, "", frames

    def is_open(self, timeout: float = 0.2) -> bool:
        """True while the server has not closed the stream (reads nothing if data waits)."""
        assert self.sock is not None
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(1, socket.MSG_PEEK)
        except TimeoutError:
            return True
        except OSError:
            return False
        return bool(data)

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None


def close_code(payload: bytes) -> int | None:
    return int(struct.unpack("!H", payload[:2])[0]) if len(payload) >= 2 else None
