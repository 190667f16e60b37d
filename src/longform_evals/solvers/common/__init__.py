"""What the solver families share: word and token limits, the summary trace (`SummaryRun`),
the step cache, question focus and truncation. Import from the defining module."""
