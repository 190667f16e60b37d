"""The papers behind the suite's tasks (their methods and their datasets), cited once here and
named by the task cards (`tasks/card.py`); the descriptor (`tasks/descriptor.py`) lists them."""

from __future__ import annotations

BOOOOKSCORE = (
    'Chang et al., 2024, "BooookScore: A systematic exploration of book-length summarization '
    'in the era of LLMs" (arXiv 2310.00785)'
)
NEXUSSUM = (
    'Kim et al., 2025, "NexusSum: Hierarchical LLM Agents for Long-Form Narrative '
    'Summarization" (ACL 2025, arXiv 2505.24575)'
)
READAGENT = (
    'Lee et al., 2024, "A Human-Inspired Reading Agent with Gist Memory of Very Long '
    'Contexts" (arXiv 2402.09727)'
)
POSITIONAL_BIAS = (
    'Wan et al., 2025, "On Positional Bias of Faithfulness for Long-form Summarization"'
)
BOOKSUM = (
    'Kryściński et al., 2022, "BookSum: A Collection of Datasets for Long-form Narrative '
    'Summarization" (Findings of EMNLP 2022)'
)
SQUALITY = (
    'Wang et al., 2022, "SQuALITY: Building a Long-Document Summarization Dataset the Hard '
    'Way" (arXiv 2205.11465)'
)
QUALITY = (
    'Pang et al., 2022, "QuALITY: Question Answering with Long Input Texts, Yes!" (NAACL 2022)'
)
NARRATIVEQA = (
    'Kočiský et al., 2018, "The NarrativeQA Reading Comprehension Challenge" (TACL 6, 2018)'
)
QMSUM = (
    'Zhong et al., 2021, "QMSum: A New Benchmark for Query-based Multi-domain Meeting '
    'Summarization" (NAACL 2021)'
)
