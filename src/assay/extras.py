"""The optional parts of assay and the one error that says how to install a missing one.

`pip install assay` brings what scoring a file needs; the extras in pyproject.toml bring the rest (PDFs,
HTTP, YAML templates, the sweep's BM25, Parquet, Excel workbooks, charts, the local judge, Ray). A module that
needs an extra imports it where it is used, and a missing one becomes `missing_extra(...)`: exit 2 and
the exact `pip install 'assay[NAME]'` line, never a ModuleNotFoundError traceback.
"""

from __future__ import annotations

from .errors import UsageError

# The import name of each optional package -> (the name pip knows it by, the extra that installs it).
# The extras themselves are pyproject.toml's [project.optional-dependencies] (tests/test_install.py
# holds the two equal).
OPTIONAL_PACKAGES = {
    "pypdfium2": ("pypdfium2", "pdf"),
    "pypdf": ("pypdf", "pdf"),
    "httpx": ("httpx", "http"),
    "yaml": ("PyYAML", "yaml"),
    "bm25s": ("bm25s", "rag"),
    "pyarrow": ("pyarrow", "parquet"),
    "openpyxl": ("openpyxl", "excel"),
    "matplotlib": ("matplotlib", "plot"),
    "llama_cpp": ("llama-cpp-python", "local"),
    "ray": ("ray", "ray"),
}


class MissingExtra(UsageError):
    """An optional package a command needs is not installed. `subject` is who needs it: "assay" in the
    library, the command line (``assay gold build``) once the CLI knows it (``for_command``)."""

    def __init__(
        self,
        module: str,
        purpose: str,
        *,
        extra: str = "",
        where: str = "",
        alternative: str = "",
        subject: str = "assay",
    ) -> None:
        self.module, self.purpose, self.alternative, self.subject = module, purpose, alternative, subject
        package, default_extra = OPTIONAL_PACKAGES[module]
        self.extra = extra or default_extra
        fix = f"pip install 'assay[{self.extra}]'" + (f", or {alternative}" if alternative else "")
        super().__init__(
            f"{subject} needs {package} {purpose}, and it is not installed", where=where, fix=fix
        )

    def for_command(self, command: str) -> MissingExtra:
        """The same error, said of the command that was run."""
        return MissingExtra(
            self.module,
            self.purpose,
            extra=self.extra,
            where=self.where,
            alternative=self.alternative,
            subject=command,
        )


def missing_extra(
    module: str, purpose: str, *, extra: str = "", where: str = "", alternative: str = ""
) -> MissingExtra:
    """The error for an optional package that failed to import: `purpose` finishes "assay needs httpx ..."
    ("to ask a system over HTTP"); `extra` overrides the package's own extra where another names the use
    better (the judge's); `alternative` is a way round that needs nothing ("write .svg")."""
    return MissingExtra(module, purpose, extra=extra, where=where, alternative=alternative)


__all__ = ["OPTIONAL_PACKAGES", "MissingExtra", "missing_extra"]
