"""Stand-ins the benchmarks and the tests share: a scripted HTTP server, an OpenAI-compatible
endpoint and generated feeds. Standard library only, so benchmarks need the runtime
requirements alone."""
