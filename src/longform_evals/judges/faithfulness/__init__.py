"""The faithfulness judges: is a summary sentence supported by a text?

Every support judge has the `SupportJudge` shape of `support.py` and is named in one table,
`support_judges.py`: the LLM yes/no judge (`llm.py`) and MiniCheck (`minicheck.py`, its
chunking in `minicheck_chunking.py`). `retrieval.py` chooses which source units each sentence
is judged against, `calibration.py` holds a judge model's thresholds and prompt, and
`judging.py` is how the `faithfulness` scorer judges a sample.
"""
