"""The OpenAI-compatible stand-in lives in bench/support (benchmarks use it without the dev
requirements); tests keep importing it from here."""

from bench.support.llmserver import *  # noqa: F403
