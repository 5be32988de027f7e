"""The stream timeline: its model, filter, header and panel."""
