"""Bytes on the wire: JSON parsing, SSE decoding, JSON-RPC envelopes, gRPC status, REST routes, A2A
error names."""
