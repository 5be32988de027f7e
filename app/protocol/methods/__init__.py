"""The A2A methods: catalog, templates' parts, body shape, version conversion, result checks,
deviations."""
