"""Renderers: a Summary or a ScoreRun in, text or a file out; each is a pure function of its input."""
