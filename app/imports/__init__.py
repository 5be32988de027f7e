"""Importing requests from other tools (curl, Postman, HAR, OpenAPI) as A2A requests. Qt-free."""
