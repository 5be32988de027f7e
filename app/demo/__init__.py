"""The bundled demo agent: an A2A server built only from official ``a2a-sdk`` pieces.

``agent`` holds the behaviour (an ``AgentExecutor``); ``server`` wires it to JSON-RPC, REST
and gRPC for protocol 1.0 and 0.3 and is started with ``a2a-workbench demo-agent``.
"""
