"""Builds the optional C accelerator and the tables its Unicode fast path reads; everything else is
declared in pyproject.toml."""

import os
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# Run in a fresh interpreter on the package being built: prints the fold tables' file to stdout.
_WRITE_TABLES = (
    "import sys; from assay.text import unicode; sys.stdout.buffer.write(unicode.fold_tables_file())"
)


class BuildExtAndTables(build_ext):
    """Also precomputes the ``unicode`` profile's fold tables (``assay/text/unicode_fold.bin``), so
    that no run pays the half second of building them. Optional as the accelerator is: without them
    (regex missing here, say) each process builds them on first use, as it does for a regex release
    other than the one they were made with."""

    def run(self) -> None:
        super().run()
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src")
        root = source if self.inplace else self.build_lib
        target = os.path.join(root, "assay", "text", "unicode_fold.bin")
        env = {**os.environ, "PYTHONPATH": source}
        made = subprocess.run([sys.executable, "-c", _WRITE_TABLES], env=env, capture_output=True)
        if made.returncode != 0:
            print(f"assay: the fold tables were not precomputed:\n{made.stderr.decode(errors='replace')}")
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
