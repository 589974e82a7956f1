"""Text handling: the seed protocols' tokenisation (more profiles arrive with careful matching)."""
