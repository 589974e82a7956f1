"""A metric's signature: what decides its numbers, as a structured object formatted once.

Two runs whose signatures are equal give equal numbers on the same input. A ``Signature`` holds
``info``, an ordered mapping of part -> value (``metric`` -> ``exact_substring@1``, ``profile`` ->
``unicode@2``, ``nfc`` -> ``off``, ``ci`` -> ``wilson95``, ``assay`` -> the version), and is the text
it formats to, ``exact_substring@1|profile:unicode@2|nfc:off|ci:wilson95|assay:0.1.0``: it is a
``str`` so that every place that shows or writes a signature keeps working, but code that needs a part
reads ``info``; a signature's text is never parsed back. Outputs carry ``info`` beside the text (the
JSON summary's ``signature_info``, Parquet metadata ``assay.signatures``), so ``compare`` can tell
where two runs' settings differ.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

METRIC = "metric"  # the part shown bare: the metric's name and version
READ_FROM = "read from"  # a run rebuilt from a scored file without signatures: where it was read
PARQUET_KEY = b"assay.signatures"  # Parquet metadata: {metric: info} as JSON


class Signature(str):
    """A signature's text, with its parts in `info` (ordered). Immutable, like the text."""

    info: Mapping[str, str]

    def __new__(cls, info: Mapping[str, str]) -> Signature:
        ordered = dict(info)
        self = super().__new__(cls, "|".join(_formatted(key, value) for key, value in ordered.items()))
        object.__setattr__(self, "info", MappingProxyType(ordered))
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Signature is immutable")

    def __reduce__(self) -> tuple[Any, ...]:  # pickles (parallel workers) as its parts
        return (Signature, (dict(self.info),))

    @classmethod
    def of(cls, metric: str, parts: Iterable[str]) -> Signature:
        """A signature from the metric's name@version and parts each written ``name:value`` by the
        code that owns them (a scorer's ``signature_parts``, ``IntervalMethod.signature()``)."""
        info = {METRIC: metric}
        for part in parts:
            name, _, value = part.partition(":")
            info[name] = value
        return cls(info)

    @classmethod
    def opaque(cls, text: str) -> Signature:
        """A signature known only as text (a judge chain's, built elsewhere): one part, shown as is."""
        return cls({METRIC: text})

    def part(self, name: str) -> str | None:
        """The part `name` as written in the text (``inflection:on@1``), or None."""
        return None if name not in self.info else _formatted(name, self.info[name])

    def differences(self, other: Signature) -> list[str]:
        """The parts that differ from `other`'s, as ``name: this -> other`` (assay's version too)."""
        names = dict.fromkeys([*self.info, *other.info])
        return [
            f"{name}: {self.info.get(name, '(none)')} -> {other.info.get(name, '(none)')}"
            for name in names
            if self.info.get(name) != other.info.get(name)
        ]


def _formatted(name: str, value: str) -> str:
    if name == METRIC:
        return value
    if name == READ_FROM:
        return f"{READ_FROM} {value}"
    return f"{name}:{value}"


def info_of(signature: str) -> Mapping[str, str] | None:
    """A signature's parts, or None for a bare text (a signature from before signatures had parts)."""
    return signature.info if isinstance(signature, Signature) else None


def signatures_json(signatures: Mapping[str, str]) -> bytes:
    """{metric: info} as JSON, for Parquet metadata (metrics with a structured signature only)."""
    found = {name: dict(info) for name, sig in signatures.items() if (info := info_of(sig)) is not None}
    return json.dumps(found, ensure_ascii=False).encode("utf-8")


def signatures_from_json(data: bytes) -> dict[str, Signature]:
    """The signatures `signatures_json` wrote; {} when unreadable (an old or foreign file)."""
    try:
        found = json.loads(data)
    except ValueError:
        return {}
    if not isinstance(found, dict):
        return {}
    return {
        str(name): Signature({str(k): str(v) for k, v in info.items()})
        for name, info in found.items()
        if isinstance(info, dict)
    }


__all__ = ["PARQUET_KEY", "Signature", "info_of", "signatures_from_json", "signatures_json"]
