"""The parts of benchmarks/reference_booookscore.py (its entry script, the command line and the
docstring): BooookScore's official package and this suite side by side.

- common.py: the parts' names and the official prompt files they read, the options, the served
  model both sides talk to, one measured run and its model usage;
- verdicts.py: both sides' sentences aligned and their verdicts compared;
- official.py: the official side, one run of driver.py (a script for the reference env of
  benchmarks/reference_env.py, where the official package is) per measured run;
- suite.py: the suite's side through `inspect_ai.eval`, its judge also given an official prompt;
- parts.py: the chunk, summarizing and scoring parts;
- report.py: the tables and the targets.
"""
