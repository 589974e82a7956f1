"""LLM judges: the prompt, one backend per file, the runner with its chain and cache, and the judge
metric with the cascade. ``assay.scoring.score`` runs them for the metric ``judge``."""
