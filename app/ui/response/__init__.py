"""The response views: status, bodies (pretty, raw, tree, big), headers and artifacts."""
