"""The coherence judges (BooookScore): does a summary sentence confuse a reader, and how?

`judges.py` is their table, one entry per BooookScore mode, and `CoherenceJudging`, the judge
object the `booookscore` scorer takes. The ways of asking: the paper's (`paper.py`: `sentence`
and `batched`, answers read by `parse.py`, with the few-shot `demonstrations.py` and the error
taxonomy of `error_types.py`), yes/no probes (`probe.py`) and the probes weighed with text
signals by a model fitted on people's labels (`fitted.py`).
"""
