"""Checking an agent against its own Agent Card (``a2a-workbench check``, *Check this agent*).

Qt-free. :mod:`app.check.check_model` holds the records a check run yields, the one seam the CLI,
the JUnit writer and the report view consume.
"""
