"""History: every exchange recorded as it happens, in a local SQLite store (Qt-free).

- :mod:`app.history.store` — opening the file, queries for the History view and the CLI;
- :mod:`app.history.recorder` — feeding an exchange's events to a writer thread;
- :mod:`app.history.codec` — events to rows and back, credentials masked;
- :mod:`app.history.har_export` — HAR 1.2 export;
- :mod:`app.history.jsonl_export` — JSON-lines export, the records ``send`` printed;
- :mod:`app.history.schema`, :mod:`app.history.retention` — migrations, what is kept.
"""
