"""The Agent Card page: read-out, models, extended card and signature verification."""
