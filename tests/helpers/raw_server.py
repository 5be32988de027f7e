"""A loopback TCP server that is not HTTP: each connection goes to a handler of a few
socket calls (hang up at once, reset, send an SSH banner). For network failures no real
peer can be made to produce; 127.0.0.1 only, one thread per connection."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

Handler = Callable[[socket.socket], None]

SSH_BANNER = b"SSH-2.0-OpenSSH_9.6\r\n"


def hang_up(conn: socket.socket) -> None:
    """Close at once, before a byte is read or written (a TLS client sees EOF)."""
    conn.close()


def reset(conn: socket.socket) -> None:
    """Read what the client says, then reset the connection (RST, no FIN)."""
    with suppress(OSError):
        conn.recv(4096)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


def ssh(conn: socket.socket) -> None:
    """An SSH server: its banner first, then it hangs up on what is not SSH."""
    conn.sendall(SSH_BANNER)
    with suppress(OSError):
        conn.recv(4096)
    conn.close()


def ssh_reset(conn: socket.socket) -> None:
    """:func:`ssh`, ending with a reset."""
    conn.sendall(SSH_BANNER)
    reset(conn)


def garbage(conn: socket.socket) -> None:
    """Answers any request with a line and a blank line that are no status line."""
    with suppress(OSError):
        conn.recv(4096)
    conn.sendall(b"HELLO THERE\r\n\r\n")
    conn.close()


@contextmanager
def raw_server(handler: Handler) -> Iterator[int]:
    """Serve ``handler`` on a free loopback port; yields the port."""
    listener = socket.create_server(("127.0.0.1", 0))
    stopped = threading.Event()

    def accept() -> None:
        while not stopped.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=_serve, args=(handler, conn), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stopped.set()
        with suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
        listener.close()
        thread.join(5)


def _serve(handler: Handler, conn: socket.socket) -> None:
    with suppress(OSError), conn:
        handler(conn)
