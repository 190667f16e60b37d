"""Question answering over long documents (docs/reading.md): ReadAgent, retrieval and
truncation baselines, their pagination, memory and look-up, and the table of reading
strategies (`strategies.py`)."""
