"""The request tab: its form, body editor, auth, headers, attachments and the wiring of its
parts."""
