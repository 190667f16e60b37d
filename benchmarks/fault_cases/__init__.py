"""Generated cases of bad (and valid but unusual) input, one module per class (input_faults.py)."""
