"""The window's frame: application start, main window, menus, settings, theme, and shared
helpers."""
