"""A package whose public names each load their module on first use (PEP 562's module ``__getattr__``),
so that importing the package loads nothing heavy: ``assay.harness`` must not bring the PDF libraries
into a scoring run, nor ``assay.harness.urls`` httpx into one that only reads URLs."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

GetAttr: TypeAlias = Callable[[str], Any]
Dir: TypeAlias = Callable[[], list[str]]


def lazy_names(package: str, modules: Mapping[str, str]) -> tuple[GetAttr, Dir]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose public names are the keys of ``modules``
    (name -> the module that defines it: "facts" is the package's own, ".." + a name is one beside the
    package, as a relative import reads it)."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        relative = module if module.startswith(".") else f".{module}"
        value = getattr(importlib.import_module(relative, package), name)
        setattr(sys.modules[package], name, value)  # found once: the next lookup never comes here
        return value

    def __dir__() -> list[str]:
        return sorted(modules)

    return __getattr__, __dir__
