"""Ports on 127.0.0.1: the helper lives in bench/support (benchmarks use it without the dev
requirements); tests keep importing it from here."""

from bench.support.ports import HOST, free_port

__all__ = ["HOST", "free_port"]
