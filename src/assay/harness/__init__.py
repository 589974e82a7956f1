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

from .._lazy import lazy_names

# Each module -> the public names it defines, loaded on first use ("facts" is the package's own module,
# "..values" one beside the package): importing assay.harness loads none of them, and a name loads only
# its own module (the gold half's PDF libraries and httpx cost a second, which scoring must not pay).
_NAMES = {
    "checks": ("Check", "WARNING_CODES"),
    "claims": (
        "FileFlag", "STATUSES", "Verdict", "Verification", "VerifyOptions", "verification_report",
        "verify_claims",
    ),
    "facts": (
        "ADAPTERS", "Claim", "FactsAdapter", "FactsFile", "load_facts", "read_facts_file", "register_adapter",
    ),
    "gold": ("GoldBuild", "Skip", "build_gold", "gold_jsonl", "gold_report", "report_markdown"),
    "outcomes": ("OUTCOMES", "outcomes", "with_outcomes"),
    "results": ("RunInfo", "results_dict", "write_results"),
    "run": ("HarnessRun", "run_gold"),
    "run_compare": ("compare_runs", "load_run"),
    "run_gate": ("GateSettings", "RunGate", "check_run"),
    "runner": ("RunOptions", "ask_all"),
    "source_map": ("map_markdown", "source_map", "url_classes"),
    "sweep": (
        "CellConfig", "GoldSpan", "Retriever", "SpanDocument", "SpanQuestion", "SpanSet", "Sweep",
        "bm25_retriever", "char_chunks", "load_chunk_eval", "load_gold_spans", "run_cell", "run_sweep",
        "token_chunks", "write_sweep",
    ),
    "systems": (
        "System", "SystemFailure", "TransportError", "answer_from", "citations_in_text",
        "load_system", "load_system_config", "system_options",
    ),
    "templates": ("FieldTemplate", "RefusalTemplate", "Templates", "load_templates", "parse_templates"),
    "template_writing": ("templates_text",),
    "urls": (
        "CheckSettings", "FoundUrl", "URL_CLASSES", "UrlCache", "UrlVerdict", "check_urls", "check_urls_sync",
        "normalise_url", "url_entries", "urls_in", "urls_markdown",
    ),
    "..documents": (
        "DEFAULT_PAGE_CACHE", "Document", "PageCacheWarning", "Sources", "load_document", "load_sources",
    ),
    "..scorers.grounding": ("Grounding", "ground"),
    "..scorers.grounding.curation": ("CleanQuote", "clean_quote", "sentinel_reason"),
    "..scorers.grounding.quotes": ("FUZZY_THRESHOLD", "LEVELS", "PreparedPages", "QuoteMatch", "find_quote"),
    "..values": (
        "ANSWER_TYPES", "Value", "answer_variants", "expected_regex", "near_misses", "parse_answer",
        "render_answer", "typed_value", "value_in_text",
    ),
}
_MODULES = {name: module for module, names in _NAMES.items() for name in names}

__getattr__, __dir__ = lazy_names(__name__, _MODULES)

__all__ = sorted(_MODULES)
