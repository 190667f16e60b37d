"""Prompt templates kept as text files: ``prompts/<method>/<name>.txt``.

Load one with :func:`load_prompt`; a user folder passed as ``prompts_dir`` can replace any
packaged template by holding a file at the same relative path.
"""

from longform_evals.prompts.loader import PromptError, PromptTemplate, load_prompt

__all__ = ["PromptError", "PromptTemplate", "load_prompt"]
