"""Data files shipped with A2A Workbench: the example specs and the generated servers' templates.

In a checkout this is the top-level ``resources/`` folder; a wheel and the PyInstaller bundle
install it as the package ``app.resources`` (``pyproject.toml``: ``package-dir``). Readers use
:func:`importlib.resources.files` on ``"app.resources"`` wherever the app runs
(``app/shipped.py``); the folder holds no code.
"""
