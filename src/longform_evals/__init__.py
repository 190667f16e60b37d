"""longform-evals: Inspect AI evaluations of long-document summarization and reading."""

__version__ = "0.1.0"
