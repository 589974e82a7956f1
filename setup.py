"""Builds the optional C accelerator; everything else is declared in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        # optional: without a C compiler assay installs anyway and uses its pure-Python path.
        Extension("assay._speedups", sources=["src/assay/_speedups.c"], optional=True),
        Extension("assay._csvwrite", sources=["src/assay/_csvwrite.c"], optional=True),
    ]
)
