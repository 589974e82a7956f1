"""Verifying curated claims against their source documents: one verdict per claim, and the counts.

Each claim's quote is searched (``quotes.find_quote``: the cascade exact -> normalised -> alnum -> pieces
-> fuzzy, page by page and then across page breaks) in the document it cites when that is the facts'
own, then in the facts' own documents, then in the cited document when it is not their own, then,
without the fuzzy level (an approximate match in a document nobody cited is no evidence), in every
other document. A claim's status is one of ``STATUSES``:

- ``found``: the quote is in the facts' own document (or one the facts cite as theirs).
- ``missing``: the cited document is present, and the quote is in no document.
- ``sentinel``: the "quote" is not one (``quotes.sentinel_reason``: "not stated", a curator's note).
- ``source_missing``: the cited document is not in the sources, and the quote is nowhere else either.
- ``other_document``: the quote is found only in a document that is not the facts' own; it is named.
- ``url``: the claim has no quote, only a web page (``source_url``). Nothing in the documents can verify
  it, and calling it a missing source or a sentinel would hide what it is; the claim-to-source map
  shows it as "URL not yet checked", or as the class a URL checker gave it.

**Own documents.** A facts file owns the source document whose id is its document id, and those whose
id is its id and a part's name (``acme__plan`` owns ``acme__plan__wordings``), unless a longer facts id
is a part of that name (``acme__plan__2024__wordings`` is ``acme__plan__2024``'s). It also owns the
documents it names (a top-level source path, a primary or supporting source, the files its claims
cite). None of these is its own when another facts file owns that document by id or by name. So a facts file
whose id matches no document, and whose quotes lie in a document that another facts file is about, is
flagged ``cross_document`` at the file level, and each of its found quotes is ``other_document``: its
gold would test one product with another's text.

**Consistency checks** on every claim with a quote that was searched (warnings; errors under
``--strict``): ``value_not_in_quote`` (a number, amount or percentage its own quote does not state:
``values.value_in_text`` is False), ``unit_mismatch`` (the claim's unit against the template's or the
field name's), ``low_confidence`` (the curator's confidence below ``min_confidence``), ``quote_differs``
(a quote found only at the fuzzy level whose content words or numbers differ from the document's: the
fuzzy level forgives slips, never a changed claim; each difference is named).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..documents import Document, Sources
from ..errors import InputError
from ..scorers.grounding.quotes import (
    FUZZY_MAX_CHARS,
    FUZZY_MIN_CHARS,
    LEVELS,
    QuoteMatch,
    ascii_alnum_count,
    clean_quote,
    find_quote,
    folded_quote,
    sentinel_reason,
)
from .checks import DEFAULT_MIN_CONFIDENCE, WARNING_CODES, Check, consistency_checks, wording_check
from .facts import Claim, FactsFile
from .templates import Templates, template_for

STATUSES = ("found", "missing", "sentinel", "source_missing", "other_document", "url")
CROSS_DOCUMENT, NO_DOCUMENT, DUPLICATE = "cross_document", "no_own_document", "duplicate_document"


@dataclass(frozen=True)
class Verdict:
    """What verifying one claim found."""

    claim: Claim
    status: str  # one of STATUSES
    reason: str | None = None  # why, in words (the sentinel's reason, the missing file, where else found)
    cited: str | None = None  # the cited document's id, when it is in the sources
    document: str | None = None  # the document the quote was found in
    match: QuoteMatch | None = None
    quote: str | None = None  # the quote as searched (a trailing note stripped)
    note: str | None = None  # the trailing curator note stripped from the quote
    warnings: tuple[Check, ...] = ()


@dataclass(frozen=True)
class FileFlag:
    """A finding about a whole facts file."""

    facts_file: str
    document: str
    code: str  # CROSS_DOCUMENT, NO_DOCUMENT or DUPLICATE
    message: str
    documents: tuple[str, ...] = ()  # the documents its quotes were found in


@dataclass(frozen=True)
class VerifyOptions:
    fuzzy: bool = True  # the cascade's last level (off under --strict)
    min_confidence: str | float = DEFAULT_MIN_CONFIDENCE


@dataclass(frozen=True)
class Verification:
    """Every claim's verdict, the file-level flags, and the facts and sources they came from."""

    facts: tuple[FactsFile, ...]
    sources: Sources
    verdicts: tuple[Verdict, ...]
    flags: tuple[FileFlag, ...]
    own: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # facts file -> its own documents


def verify_claims(
    facts: Sequence[FactsFile],
    sources: Sources,
    *,
    templates: Templates | None = None,
    options: VerifyOptions = VerifyOptions(),
) -> Verification:
    """Verify every claim of every facts file (in file order, then claim order)."""
    own = own_documents(facts, sources)
    verdicts = tuple(
        with_checks(verify_claim(claim, own[file.path], sources, fuzzy=options.fuzzy), templates, options)
        for file in facts
        for claim in file.claims
    )
    flags = tuple(flag for file in facts for flag in file_flags(file, own, verdicts, facts))
    return Verification(tuple(facts), sources, verdicts, flags, own)


# --- own documents, and the file-level flags --------------------------------------------------------


def own_documents(facts: Sequence[FactsFile], sources: Sources) -> dict[str, tuple[str, ...]]:
    """Each facts file's own documents, by its path (see the module docstring for the rule)."""
    named = {file.path: facts_document_id(file, sources) for file in facts}
    owner = _owners_by_name(sources, set(named.values()))
    own: dict[str, tuple[str, ...]] = {}
    for file in facts:
        # The document named as the facts are, and its parts: "acme__plan" owns "acme__plan__wordings".
        found = [doc for doc in sources if owner.get(doc) == named[file.path]]
        references = _references(file)
        # The references that name one document first: they tell which of an ambiguous one's matches
        # is meant ("terms.pdf" next to "2024/terms.pdf" is the 2024 one).
        ordered = sorted(references, key=lambda reference: len(sources.candidates(reference)) > 1)
        for reference in ordered:
            document = resolve(sources, reference, references[reference], prefer=found)
            if document is not None:
                found.append(document.id)
        kept = [doc for doc in found if owner.get(doc) in (None, named[file.path])]
        own[file.path] = tuple(dict.fromkeys(kept))
    return own


def facts_document_id(file: FactsFile, sources: Sources) -> str:
    """The id of the document the facts are about: their document id, or the one document it names
    as a path or file name would ("hr/handbook.pdf" for hr__handbook), which curators write too."""
    if file.document in sources:
        return file.document
    found = sources.candidates(file.document)
    return found[0].id if len(found) == 1 else file.document


def _owners_by_name(sources: Sources, ids: set[str]) -> dict[str, str]:
    """Each document's owner by name: the facts id it is, or the longest facts id it is a part of.
    "acme__plan__2024__wordings" is the part of "acme__plan__2024", not of "acme__plan", when facts
    about both exist: the shorter id's facts would otherwise own the other product's wording."""
    owners: dict[str, str] = {}
    for doc in sources:
        named = [i for i in ids if doc == i or doc.startswith(f"{i}__")]
        if named:
            owners[doc] = max(named, key=len)
    return owners


def _references(file: FactsFile) -> dict[str, str]:
    """The source references a facts file writes, each with where it is first written."""
    where: dict[str, str] = {}
    for reference in (*file.own_sources, *file.supporting_sources):
        where.setdefault(reference, file.path)
    for claim in file.claims:
        if claim.source_path:
            where.setdefault(claim.source_path, _claim_place(claim))
    return where


def _claim_place(claim: Claim) -> str:
    return f"{claim.facts_file}: {claim.where} ({claim.field})"


def resolve(sources: Sources, reference: str, where: str, *, prefer: Sequence[str] = ()) -> Document | None:
    """The document a facts file's reference names. A reference that matches several documents means
    the one of them that is already the facts' own (`prefer`, by id), when exactly one is; else it is
    an error naming where the reference is written and the documents it matches."""
    found = sources.candidates(reference)
    if len(found) <= 1:
        return found[0] if found else None
    preferred = [document for document in found if document.id in prefer]
    if len(preferred) == 1:
        return preferred[0]
    paths = ", ".join(document.path for document in found)
    raise InputError(
        f"the source reference {reference!r} matches {len(found)} documents ({paths})",
        where=where,
        fix=f"write more of its path, such as {found[0].path!r}, or its document id, such as {found[0].id!r}",
    )


def file_flags(
    file: FactsFile,
    own: Mapping[str, tuple[str, ...]],
    verdicts: Sequence[Verdict],
    facts: Sequence[FactsFile],
) -> list[FileFlag]:
    """A facts file with no document of its own: cross-document when its quotes are found in others;
    and one about a document an earlier facts file is about too."""
    flags = _duplicate(file, facts)
    if own[file.path]:
        return flags
    found_in = sorted({v.document for v in verdicts if v.claim.facts_file == file.path and v.document})
    if not found_in:
        message = (
            f"no source document is {file.document!r} or named by the file as its own, "
            "and none of its quotes is found"
        )
        return [*flags, FileFlag(file.path, file.document, NO_DOCUMENT, message)]
    owners = {other.document: other.path for other in facts if other.path != file.path}
    where = "; ".join(
        f"{document} (the document of the facts file {owners[document]})" if document in owners else document
        for document in found_in
    )
    message = (
        f"cross-document facts: no source document is {file.document!r}, and its quotes are found in "
        f"another document: {where}. Its claims are not gold for {file.document!r}"
    )
    return [*flags, FileFlag(file.path, file.document, CROSS_DOCUMENT, message, tuple(found_in))]


def _duplicate(file: FactsFile, facts: Sequence[FactsFile]) -> list[FileFlag]:
    """Two facts files about one document ask the same questions of it, and only the first one's
    items are kept: say so of the second, rather than let its claims fall out one by one."""
    earlier = next((other for other in facts if other.document == file.document), file)
    if earlier is file:
        return []
    message = (
        f"the facts file {earlier.path} is about {file.document!r} too: where both hold a field, the "
        f"gold set keeps {earlier.path}'s. Merge the two files into one"
    )
    return [FileFlag(file.path, file.document, DUPLICATE, message, (file.document,))]


# --- one claim -------------------------------------------------------------------------------------


def verify_claim(claim: Claim, own: Sequence[str], sources: Sources, *, fuzzy: bool = True) -> Verdict:
    """One claim's verdict (before the consistency checks)."""
    raw = claim.quote
    if (raw is None or not raw.strip()) and claim.source_url:
        return Verdict(claim, "url", reason=f"no quote; the source is the web page {claim.source_url}")
    sentinel = sentinel_reason(raw)
    if sentinel is not None or raw is None:
        return Verdict(claim, "sentinel", reason=sentinel or "no quote")
    cleaned = clean_quote(raw)
    if not cleaned.text.strip():
        return Verdict(
            claim,
            "sentinel",
            reason="nothing is left of the quote once its note is stripped",
            note=cleaned.note,
        )
    cited = (
        resolve(sources, claim.source_path, _claim_place(claim), prefer=own) if claim.source_path else None
    )
    trusted = {cited.id} if cited else set()
    found = _search(
        cleaned.text, _search_order(cited, own, sources), trusted | set(own), sources, fuzzy=fuzzy
    )
    status, reason = _status(claim, cited, own, found, sources)
    if status == "missing":
        reason = f"{reason}{_unfuzzy_words(cleaned.text, fuzzy)}"
    document, match = found if found else (None, None)
    return Verdict(
        claim, status, reason, cited.id if cited else None, document, match, cleaned.text, cleaned.note
    )


def _search_order(cited: Document | None, own: Sequence[str], sources: Sources) -> list[str]:
    """The cited document first when it is the facts' own; the own ones; the cited one when it is not
    (a quote that is also in an own document is found there); then every other document."""
    cited_ids = [cited.id] if cited else []
    first = cited_ids if cited and cited.id in own else []
    return list(dict.fromkeys([*first, *own, *cited_ids, *sources]))


def _search(
    quote: str, order: Sequence[str], trusted: set[str], sources: Sources, *, fuzzy: bool
) -> tuple[str, QuoteMatch] | None:
    """The first document in `order` that holds the quote; the fuzzy level only in `trusted` ones (the
    cited and own documents)."""
    for document_id in order:
        match = find_quote(quote, sources[document_id].pages, fuzzy=fuzzy and document_id in trusted)
        if match is not None:
            return document_id, match
    return None


def _status(
    claim: Claim,
    cited: Document | None,
    own: Sequence[str],
    found: tuple[str, QuoteMatch] | None,
    sources: Sources,
) -> tuple[str, str | None]:
    absent = _absent_reason(claim.source_path, sources) if claim.source_path and cited is None else None
    if found is not None:
        document = found[0]
        if document not in own:
            own_words = ", ".join(own) if own else "none"
            return (
                "other_document",
                f"found only in {document}, not in the facts' own documents ({own_words})",
            )
        return "found", f"{absent}; the quote is in {document}" if absent else None
    if absent:
        return "source_missing", absent
    if cited is None and not own:
        return "source_missing", "the claim cites no file and the facts have no document of their own"
    searched = [cited.id] if cited else list(own)
    return "missing", f"the quote is not in {', '.join(searched)}, nor in any other document" + "".join(
        _scan_words(sources[document]) for document in searched
    )


def _unfuzzy_words(quote: str, fuzzy: bool) -> str:
    """Why a missing quote had no approximate search, so the curator knows a slip was not forgiven."""
    if not fuzzy:
        return "; the fuzzy level is off (--strict): the quote must be found as written, folded"
    # Its ASCII letters and digits bound its folded size from below: a long quote is not folded again.
    size = ascii_alnum_count(quote)
    if size <= FUZZY_MAX_CHARS:
        size = len(folded_quote(quote.strip())[0])
    if size < FUZZY_MIN_CHARS:
        return (
            f"; a quote under {FUZZY_MIN_CHARS} characters is not fuzzy-matched (it would match unrelated "
            "text): copy it exactly, or quote more of the sentence"
        )
    if size > FUZZY_MAX_CHARS:
        return (
            f"; a quote over {FUZZY_MAX_CHARS} characters is not fuzzy-matched: copy it exactly, or cut it "
            "into pieces joined by '...'"
        )
    return ""


def _absent_reason(reference: str, sources: Sources) -> str:
    """Why a cited file is not among the documents: not there, or there and unreadable."""
    written = reference.replace("\\", "/")
    for path, reason in sources.problems:
        if written == path or written.endswith("/" + path):
            return f"the cited file {reference} could not be read ({reason})"
    return f"the cited file {reference} is not in the sources"


def _scan_words(document: Document) -> str:
    """A quote missing from a document with pages of no text may be on one of them: say so."""
    if not document.empty_pages:
        return ""
    pages = ", ".join(map(str, document.empty_pages))
    return f"; {document.id} has pages with no text (scans that need OCR): {pages}"


def with_checks(verdict: Verdict, templates: Templates | None, options: VerifyOptions) -> Verdict:
    """Check every claim with a quote that was searched (whatever was found), not sentinels or URLs."""
    if verdict.quote is None:
        return verdict
    template = template_for(verdict.claim, templates)
    checks = consistency_checks(verdict.claim, verdict.quote, template, min_confidence=options.min_confidence)
    return replace(verdict, warnings=(*checks, *wording_check(verdict.quote, verdict.match)))


# --- counts and the report -------------------------------------------------------------------------


def tally(verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """Counts of claims by status and, of every quote found (in its own or another document), by match
    level; every status and level is listed, zeros too."""
    statuses = Counter(v.status for v in verdicts)
    levels = Counter(v.match.level for v in verdicts if v.match is not None)
    warnings = Counter(check.code for v in verdicts for check in v.warnings)
    return {
        "claims": len(verdicts),
        "by_status": {status: statuses[status] for status in STATUSES},
        "by_level": {level: levels[level] for level in LEVELS},
        "warnings": {code: warnings[code] for code in WARNING_CODES},
    }


def counts(verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """The tally overall and per document (the facts' document id), documents sorted."""
    documents = sorted({v.claim.document for v in verdicts})
    return {
        "total": tally(verdicts),
        "by_document": {doc: tally([v for v in verdicts if v.claim.document == doc]) for doc in documents},
    }


def verdict_entry(verdict: Verdict) -> dict[str, Any]:
    """One claim's report entry (JSON-ready)."""
    claim, match = verdict.claim, verdict.match
    return {
        "document": claim.document,
        "field": claim.field,
        "value": claim.value,
        "unit": claim.unit,
        "status": verdict.status,
        "reason": verdict.reason,
        "found_in": verdict.document,
        "match_level": match.level if match else None,
        "page": match.page if match else None,
        "end_page": match.end_page if match else None,
        "span": list(match.span) if match else None,
        "score": match.score if match else None,
        "quote": verdict.quote if verdict.quote is not None else claim.quote,
        "note": verdict.note,
        "warnings": [{"code": check.code, "message": check.message} for check in verdict.warnings],
        "source": {"path": claim.source_path, "url": claim.source_url, "document": verdict.cited},
        "confidence": claim.confidence,
        "facts_file": claim.facts_file,
        "where": claim.where,
    }


def document_summary(document: Document) -> dict[str, Any]:
    """What extraction found in one source document; a page with no text is a scan that needs OCR."""
    return document.summary() | {"needs_ocr": bool(document.empty_pages)}


def flag_entry(flag: FileFlag) -> dict[str, Any]:
    return {
        "facts_file": flag.facts_file,
        "document": flag.document,
        "code": flag.code,
        "message": flag.message,
        "documents": list(flag.documents),
    }


def verification_report(verification: Verification) -> dict[str, Any]:
    """The verification as a JSON-ready report: documents, file flags, one entry per claim, counts."""
    sources = verification.sources
    return {
        "documents": [document_summary(document) for document in sources.values()],
        "source_problems": [{"path": path, "reason": reason} for path, reason in sources.problems],
        "ignored_files": list(sources.ignored),  # in the sources folder, of no kind that is read
        "facts_files": [
            {
                "file": file.path,
                "document": file.document,
                "title": file.title,
                "adapter": file.adapter,
                "own_documents": list(verification.own[file.path]),
                "claims": len(file.claims),
            }
            for file in verification.facts
        ],
        "file_flags": [flag_entry(flag) for flag in verification.flags],
        "claims": [verdict_entry(verdict) for verdict in verification.verdicts],
        "counts": counts(verification.verdicts),
    }


def has_errors(verification: Verification, *, strict: bool) -> bool:
    """Under --strict, any warning is an error (and so is a file flag)."""
    return strict and (any(v.warnings for v in verification.verdicts) or bool(verification.flags))
