"""Ports on 127.0.0.1 for servers a test or a benchmark starts, or for a URL nothing answers."""

import socket

HOST = "127.0.0.1"


def free_port() -> int:
    """A port nothing listens on right now (the OS picked it; a server may take it next)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]
