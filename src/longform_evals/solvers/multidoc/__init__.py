"""Multi-document summarization against positional bias (`summary.py`)."""
