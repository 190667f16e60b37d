"""Planted sets written for this project: texts with known errors placed in known sentences, to
calibrate judges and to check that metrics move (`answers.py`: reader answers with known
ratings; `support.py`: summaries with unsupported or contradicting sentences). Their files are
in `data/raters/` and `data/faithfulness/`; the benchmark loaders and people's labels
(`data/labels/`) are apart."""
