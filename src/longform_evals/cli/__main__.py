"""`python -m longform_evals.cli`: the `longform` command."""

from longform_evals.cli import main

main()
