"""Bindings: each turns an :class:`~app.protocol.request.A2ARequest` into exchange events."""
