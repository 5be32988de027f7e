"""The History dock and its viewers and exports."""
