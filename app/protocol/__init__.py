"""Speaking A2A, with no Qt: method catalog, request building, transports, exchange events.

Everything here is usable from a plain Python script or the CLI. The GUI (``app.ui``) and
the CLI consume the same exchange-event stream produced by :func:`app.protocol.exchange.run`.
"""
