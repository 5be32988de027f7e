"""What a stream says: item classification, the stream session, lifecycle lint, gaps, artifacts,
follow-ups."""
