"""The scripted HTTP server lives in bench/support (benchmarks use it without the dev
requirements); tests keep importing it from here."""

from bench.support.httpserver import Reply, Request, ScriptedServer

__all__ = ["Reply", "Request", "ScriptedServer"]
