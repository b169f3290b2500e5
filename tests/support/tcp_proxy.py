"""A TCP proxy on loopback that a test can cut: a database "outage" without stopping the shared server.

Every connection is piped to ``upstream``; :meth:`TcpProxy.cut` closes the listener and every connection,
so clients meet refused and broken connections as they would when the server goes down.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from types import TracebackType


class TcpProxy:
    """Listens on ``127.0.0.1:port`` and forwards to ``(host, port)``; a context manager."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self._upstream = upstream
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._cut = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # cut
            server = socket.create_connection(self._upstream)
            with self._lock:
                if self._cut:
                    client.close()
                    server.close()
                    return
                self._sockets += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=_pipe, args=(source, sink), daemon=True).start()

    def cut(self) -> None:
        """Refuse new connections and break the open ones."""
        with self._lock:
            self._cut = True
            self._listener.close()
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()

    def __enter__(self) -> TcpProxy:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.cut()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)
