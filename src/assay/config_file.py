"""Reading an ``assay.toml``: one reader for every table in it ([judge], [system]), so that a file that
cannot be read, is not UTF-8 or is not TOML is said the same way whichever command reads it."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from .errors import UsageError


def read_config(path: str | Path) -> dict[str, Any]:
    """The whole document of a TOML config file; a UsageError naming the file and the fix otherwise."""
    path = Path(path)
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(
            f"cannot read the config file ({exc.strerror})", where=str(path), fix="give an existing file"
        ) from None
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"the config file is not UTF-8 text (byte offset {exc.start})",
            where=str(path),
            fix="save it as UTF-8, as TOML requires",
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(
            f"the config file is not valid TOML ({exc})", where=str(path), fix="fix the TOML syntax"
        ) from None
