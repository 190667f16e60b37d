"""Single-document summarization (BooookScore, Appendix A): full context with truncation,
hierarchical merging, incremental updating, artifact removal, and given summaries."""
