"""Behaviour checks of the metrics: perturbations of bundled inputs and their expected effects.

`spec.py` holds the model (`Check`, `Result`), `inputs.py` the fixture inputs and the call of a
real scorer on one answer, the `*_checks.py` modules one list of checks per metric family, and
`runner.py` runs them and renders a markdown table or JUnit XML.
"""
