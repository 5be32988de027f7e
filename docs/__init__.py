"""The user manual shipped with A2A Workbench: the Markdown pages and their screenshots.

In a checkout this is the top-level ``docs/`` folder; a wheel and the PyInstaller bundle
install its pages (``*.md``) and screenshots (``screenshots/*.png``) as the package
``app.docs`` (``pyproject.toml``: ``package-dir``), which *Help → Documentation* shows offline
(``app/shipped.py``: ``doc_page``). The folder holds no code.
"""
