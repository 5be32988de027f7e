"""HTTP plumbing: the httpx client, network settings, TLS contexts, credentials and network errors
in words."""
