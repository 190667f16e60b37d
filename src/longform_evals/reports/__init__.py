"""Reports read from Inspect logs: tables and plots (see the submodules)."""
