"""People's labels of summaries, to measure a judge against: the schema (:mod:`.schema`), one
module per published format, and :func:`.load.load_judge_labels`, which tells them apart."""
