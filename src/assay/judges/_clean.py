"""What comes into assay from a judge is made safe where it enters, so no writer downstream has to: every
text of a completion is cleaned (``net.clean``: secrets redacted, lone surrogates replaced).

The redaction itself is the HTTP layer's (``assay.net``), shared with the systems under test and the URL
check.
"""

from __future__ import annotations

from dataclasses import replace

from ..net import clean
from ._base import Completion


def cleaned(completion: Completion) -> Completion:
    """A completion with every text in it cleaned (see ``net.clean``)."""
    fingerprint = None if completion.fingerprint is None else clean(completion.fingerprint)
    return replace(
        completion, text=clean(completion.text), model=clean(completion.model), fingerprint=fingerprint
    )
