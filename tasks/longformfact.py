"""`inspect eval tasks/longformfact.py --model ... -T data_dir=DIR`: faithfulness meta-eval."""

from longform_evals.tasks.longformfact import longformfact

__all__ = ["longformfact"]
