"""The gold-QA harness for teams shipping a retrieval-augmented assistant: gold sets built from curated
facts whose quotes are verified in their source documents, and the claim-to-source map.

The flow (each step a pure function; ``assay gold build`` and ``assay sources map`` only call them):

    load_facts(folder)  +  load_sources(folder)          claims, and documents as text per page (cached)
        -> verify_claims(facts, sources, templates=...)  every claim's quote found (find_quote) or not
        -> build_gold(verification, templates)           gold items: question, typed value, pattern, source
        -> gold_jsonl / gold_report / source_map         the gold set, the report, the map

A system under test (``load_system``: a Python callable, an OpenAI-compatible chat endpoint, a JSON
HTTP endpoint) is asked every item of a gold set (``run_gold``, over ``ask_all`` and a journal to resume
from). Its replies are scored (``hard_fact``, ``value_match``, ``refusal``, ``grounded`` over ``ground``,
the judge), each item graded into one outcome class (``outcomes``, ``with_outcomes``: the hallucination
breakdown, and the derived metrics ``factual`` and ``citation``), reported (``write_results``:
results.json, .md and .html, with ``RunInfo``'s signatures), gated (``check_run``) and compared with
another run (``compare_runs``).

The grounding tools: the URLs that facts, gold sets and corpora cite, found (``urls_in``), checked over
HTTP and classed (``check_urls``, with a ``UrlCache``) and reported (``url_entries``, ``urls_markdown``);
and the retrieval sweep over chunk size and overlap, scored by character spans (``load_chunk_eval`` or
``load_gold_spans`` -> ``run_sweep`` over ``run_cell`` -> ``write_sweep``).

It is its own public surface (``assay.harness``), apart from ``assay``'s, and each name loads its module
on first use: the ``value_match`` scorer reads the value modules, and scoring a file of responses must
not load the PDF libraries with them. A gold set's items load with ``assay.load_records`` as records
with a ``Gold``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from ..documents import (
        DEFAULT_PAGE_CACHE,
        Document,
        PageCacheWarning,
        Sources,
        load_document,
        load_sources,
    )
    from ..scorers.grounding import Grounding, ground
    from ..scorers.grounding.curation import CleanQuote, clean_quote, sentinel_reason
    from ..scorers.grounding.quotes import FUZZY_THRESHOLD, LEVELS, PreparedPages, QuoteMatch, find_quote
    from ..values import (
        ANSWER_TYPES,
        Value,
        answer_variants,
        expected_regex,
        near_misses,
        parse_answer,
        render_answer,
        typed_value,
        value_in_text,
    )
    from .checks import WARNING_CODES, Check
    from .claims import (
        STATUSES,
        FileFlag,
        Verdict,
        Verification,
        VerifyOptions,
        verification_report,
        verify_claims,
    )
    from .facts import ADAPTERS, Claim, FactsAdapter, FactsFile, load_facts, read_facts_file, register_adapter
    from .gold import GoldBuild, Skip, build_gold, gold_jsonl, gold_report, report_markdown
    from .outcomes import OUTCOMES, outcomes, with_outcomes
    from .results import RunInfo, results_dict, write_results
    from .run import HarnessRun, run_gold
    from .run_compare import compare_runs, load_run
    from .run_gate import GateSettings, RunGate, check_run
    from .runner import RunOptions, ask_all
    from .source_map import map_markdown, source_map, url_classes
    from .sweep import (
        CellConfig,
        GoldSpan,
        Retriever,
        SpanDocument,
        SpanQuestion,
        SpanSet,
        Sweep,
        bm25_retriever,
        char_chunks,
        load_chunk_eval,
        load_gold_spans,
        run_cell,
        run_sweep,
        token_chunks,
        write_sweep,
    )
    from .systems import (
        Answer,
        System,
        SystemFailure,
        TransportError,
        answer_from,
        citations_in_text,
        load_system,
        load_system_config,
        system_options,
    )
    from .templates import FieldTemplate, RefusalTemplate, Templates, load_templates, parse_templates
    from .urls import (
        URL_CLASSES,
        CheckSettings,
        FoundUrl,
        UrlCache,
        UrlVerdict,
        check_urls,
        check_urls_sync,
        normalise_url,
        url_entries,
        urls_in,
        urls_markdown,
    )

# Each public name -> the module that defines it (loaded by __getattr__ on first use).
_MODULES = {
    "ADAPTERS": "facts",
    "ANSWER_TYPES": "..values",
    "Answer": "systems",
    "CellConfig": "sweep",
    "Check": "checks",
    "CheckSettings": "urls",
    "Claim": "facts",
    "CleanQuote": "..scorers.grounding.curation",
    "DEFAULT_PAGE_CACHE": "..documents",
    "Document": "..documents",
    "FUZZY_THRESHOLD": "..scorers.grounding.quotes",
    "FactsAdapter": "facts",
    "FactsFile": "facts",
    "FieldTemplate": "templates",
    "FileFlag": "claims",
    "FoundUrl": "urls",
    "GateSettings": "run_gate",
    "GoldBuild": "gold",
    "GoldSpan": "sweep",
    "Grounding": "..scorers.grounding",
    "HarnessRun": "run",
    "LEVELS": "..scorers.grounding.quotes",
    "OUTCOMES": "outcomes",
    "PageCacheWarning": "..documents",
    "PreparedPages": "..scorers.grounding.quotes",
    "QuoteMatch": "..scorers.grounding.quotes",
    "RefusalTemplate": "templates",
    "Retriever": "sweep",
    "RunGate": "run_gate",
    "RunInfo": "results",
    "RunOptions": "runner",
    "STATUSES": "claims",
    "Skip": "gold",
    "Sources": "..documents",
    "SpanDocument": "sweep",
    "SpanQuestion": "sweep",
    "SpanSet": "sweep",
    "Sweep": "sweep",
    "System": "systems",
    "SystemFailure": "systems",
    "Templates": "templates",
    "TransportError": "systems",
    "URL_CLASSES": "urls",
    "UrlCache": "urls",
    "UrlVerdict": "urls",
    "Value": "..values",
    "Verdict": "claims",
    "Verification": "claims",
    "VerifyOptions": "claims",
    "WARNING_CODES": "checks",
    "answer_from": "systems",
    "answer_variants": "..values",
    "ask_all": "runner",
    "bm25_retriever": "sweep",
    "build_gold": "gold",
    "char_chunks": "sweep",
    "check_run": "run_gate",
    "check_urls": "urls",
    "check_urls_sync": "urls",
    "citations_in_text": "systems",
    "clean_quote": "..scorers.grounding.curation",
    "compare_runs": "run_compare",
    "expected_regex": "..values",
    "find_quote": "..scorers.grounding.quotes",
    "gold_jsonl": "gold",
    "gold_report": "gold",
    "ground": "..scorers.grounding",
    "load_chunk_eval": "sweep",
    "load_document": "..documents",
    "load_facts": "facts",
    "load_gold_spans": "sweep",
    "load_run": "run_compare",
    "load_sources": "..documents",
    "load_system": "systems",
    "load_system_config": "systems",
    "load_templates": "templates",
    "map_markdown": "source_map",
    "near_misses": "..values",
    "normalise_url": "urls",
    "outcomes": "outcomes",
    "parse_answer": "..values",
    "parse_templates": "templates",
    "read_facts_file": "facts",
    "register_adapter": "facts",
    "render_answer": "..values",
    "report_markdown": "gold",
    "results_dict": "results",
    "run_cell": "sweep",
    "run_gold": "run",
    "run_sweep": "sweep",
    "sentinel_reason": "..scorers.grounding.curation",
    "source_map": "source_map",
    "system_options": "systems",
    "token_chunks": "sweep",
    "typed_value": "..values",
    "url_classes": "source_map",
    "url_entries": "urls",
    "urls_in": "urls",
    "urls_markdown": "urls",
    "value_in_text": "..values",
    "verification_report": "claims",
    "verify_claims": "claims",
    "with_outcomes": "outcomes",
    "write_results": "results",
    "write_sweep": "sweep",
}


__getattr__, __dir__ = lazy_names(__name__, _MODULES)


__all__ = [
    "ADAPTERS",
    "ANSWER_TYPES",
    "DEFAULT_PAGE_CACHE",
    "FUZZY_THRESHOLD",
    "LEVELS",
    "OUTCOMES",
    "STATUSES",
    "URL_CLASSES",
    "WARNING_CODES",
    "Answer",
    "CellConfig",
    "Check",
    "CheckSettings",
    "Claim",
    "CleanQuote",
    "Document",
    "FactsAdapter",
    "FactsFile",
    "FieldTemplate",
    "FileFlag",
    "FoundUrl",
    "GateSettings",
    "GoldBuild",
    "GoldSpan",
    "Grounding",
    "HarnessRun",
    "PageCacheWarning",
    "PreparedPages",
    "QuoteMatch",
    "RefusalTemplate",
    "Retriever",
    "RunGate",
    "RunInfo",
    "RunOptions",
    "Skip",
    "Sources",
    "SpanDocument",
    "SpanQuestion",
    "SpanSet",
    "Sweep",
    "System",
    "SystemFailure",
    "Templates",
    "TransportError",
    "UrlCache",
    "UrlVerdict",
    "Value",
    "Verdict",
    "Verification",
    "VerifyOptions",
    "answer_from",
    "answer_variants",
    "ask_all",
    "bm25_retriever",
    "build_gold",
    "char_chunks",
    "check_run",
    "check_urls",
    "check_urls_sync",
    "citations_in_text",
    "clean_quote",
    "compare_runs",
    "expected_regex",
    "find_quote",
    "gold_jsonl",
    "gold_report",
    "ground",
    "load_chunk_eval",
    "load_document",
    "load_facts",
    "load_gold_spans",
    "load_run",
    "load_sources",
    "load_system",
    "load_system_config",
    "load_templates",
    "map_markdown",
    "near_misses",
    "normalise_url",
    "outcomes",
    "parse_answer",
    "parse_templates",
    "read_facts_file",
    "register_adapter",
    "render_answer",
    "report_markdown",
    "results_dict",
    "run_cell",
    "run_gold",
    "run_sweep",
    "sentinel_reason",
    "source_map",
    "system_options",
    "token_chunks",
    "typed_value",
    "url_classes",
    "url_entries",
    "urls_in",
    "urls_markdown",
    "value_in_text",
    "verification_report",
    "verify_claims",
    "with_outcomes",
    "write_results",
    "write_sweep",
]
