"""Builds the optional C accelerator and the tables its Unicode fast path reads; everything else is
declared in pyproject.toml."""

import os
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# Run in a fresh interpreter on the package being built: each prints its table's file to stdout.
_WRITE = "import sys; from assay.text import {module}; sys.stdout.buffer.write({module}.{contents})"
_WRITE_TABLES = {
    "unicode_fold.bin": _WRITE.format(module="unicode", contents="fold_tables_file()"),
    "seed_punctuation.txt": _WRITE.format(module="seed", contents="punctuation_file().encode()"),
}


class BuildExtAndTables(build_ext):
    """Also precomputes the ``unicode`` profile's fold tables (``assay/text/unicode_fold.bin``) and the
    seed's punctuation (``assay/text/seed_punctuation.txt``), so that no run pays the half second of
    building them. Optional as the accelerator is: without them (regex missing here, say) each process
    builds them on first use, as it does for Unicode data or a regex release other than theirs."""

    def run(self) -> None:
        super().run()
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src")
        root = source if self.inplace else self.build_lib
        for name, code in _WRITE_TABLES.items():
            self._write_table(os.path.join(root, "assay", "text", name), code, source)

    @staticmethod
    def _write_table(target: str, code: str, source: str) -> None:
        # pip's isolated build environment reaches the child through PYTHONPATH too (regex is there)
        inherited = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [source, inherited]))}
        made = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True)
        if made.returncode != 0:
            print(f"assay: {target} was not precomputed:\n{made.stderr.decode(errors='replace')}")
            return
        os.makedirs(os.path.dirname(target), exist_ok=True)
        temp = f"{target}.tmp-{os.getpid()}"
        with open(temp, "wb") as written:
            written.write(made.stdout)
        os.replace(temp, target)  # whole or not at all


setup(
    ext_modules=[
        # optional: without a C compiler assay installs anyway and uses its pure-Python path.
        Extension("assay._speedups", sources=["src/assay/_speedups.c"], optional=True),
        Extension("assay._csvwrite", sources=["src/assay/_csvwrite.c"], optional=True),
    ],
    cmdclass={"build_ext": BuildExtAndTables},
)
