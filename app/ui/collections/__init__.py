"""Collections: the spec dock and tree, imports, environments, docs and server generation."""
