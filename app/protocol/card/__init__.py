"""The Agent Card: discovery, reading, validation, comparison and signature verification.

No Qt and no I/O beyond :mod:`.fetch` (one HTTP GET) and :mod:`.read` (one file read).

- :mod:`.fetch`: the public card GET (no credentials, no redirects, ≤1 MiB, ETag/304) on
  the shared HTTP primitives of :mod:`app.protocol.net.http`; :mod:`.parse`: bytes to JSON.
- :mod:`.read`: what a fetch or a file gave, interpreted once for the GUI and the CLI.
- :mod:`.shape`: pure 1.0 / pure 0.3 / hybrid; :mod:`.descriptor` and :mod:`.validate`:
  field-level problems; :mod:`.view`: the normalized card for display; :mod:`.diff`: public
  vs. extended card.
- :mod:`.jwks`, :mod:`.canonical`, :mod:`.verify`: JWS signature verification against a
  user-supplied JWKS, per signer canonicalisation profile.
"""
