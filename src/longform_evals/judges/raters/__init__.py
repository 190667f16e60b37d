"""The LLM raters (LR-1 / LR-2): does an answer match its reference answers?

`rating.py` asks the strict and permissive raters and rates an answer (and registers them),
`calibration.py` holds a grader model's thresholds.
"""
