"""OpenAPI 3.2 documents and the ``x-a2a`` extension, with no Qt."""
