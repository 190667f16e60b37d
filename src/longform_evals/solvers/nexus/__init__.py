"""NexusSum: the pipeline (`pipeline.py`), its stages as solvers (`stages.py`) and the scene
splitter (`scenes.py`)."""
