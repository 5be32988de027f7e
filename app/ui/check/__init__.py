"""*Check this agent*: the action and its report."""
