"""First run and help: the Welcome tab and its five steps, the manual viewer."""
