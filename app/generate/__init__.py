"""Generating a runnable A2A agent project from a card (``a2a-workbench generate-server``).

Qt-free. :mod:`app.generate.model` holds the plan both generators (Python, Node) render.
"""
