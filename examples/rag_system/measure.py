"""Run the example bot over a gold set and say how its retrieval and guard did, apart from `assay run`.

    python examples/rag_system/measure.py GOLD.jsonl SOURCES_DIR OUT.jsonl [KEY=VALUE ...]

OUT.jsonl holds each gold item with the bot's `response` (score it with `assay score OUT.jsonl --metric
hard_fact --metric value_match`). It prints the retrieval hit rate (how many answerable items have the gold
quote's page among the top chunks, and how many have it in the top chunk), how many answerable items the
floor blocked, and how many refusal items it blocked; and, for tuning the floor, the best chunk's score of
every answerable and refusal item.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any


def load_bot() -> Any:
    spec = importlib.util.spec_from_file_location("rag_system_bot", Path(__file__).with_name("bot.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(arguments: list[str]) -> None:
    gold_path, sources, out = Path(arguments[0]), arguments[1], Path(arguments[2])
    options = dict(argument.split("=", 1) for argument in arguments[3:])
    bot = load_bot()
    items = [json.loads(line) for line in gold_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    tally = {"answerable": 0, "in_top": 0, "in_first": 0, "blocked": 0, "refusals": 0, "refusals_blocked": 0}
    scores: dict[str, list[float]] = {"answerable": [], "refusal": []}
    rows = []
    for item in items:
        floorless = bot.answer(item["question"], scope=item.get("scope"), sources=sources, floor="0")
        result = bot.answer(item["question"], scope=item.get("scope"), sources=sources, **options)
        rows.append({**item, "response": result["text"]})
        best = floorless["contexts"][0] if floorless["contexts"] else None
        top_score = bot.retrieve(
            item["question"], item.get("scope"), bot.indexes(Path(sources)), 1
        )
        scores["refusal" if item.get("expected_refusal") else "answerable"].append(
            round(top_score[0].score, 3) if top_score else 0.0
        )
        if item.get("expected_refusal"):
            tally["refusals"] += 1
            tally["refusals_blocked"] += bool(result["blocked"])
            continue
        tally["answerable"] += 1
        tally["blocked"] += bool(result["blocked"])
        source = item.get("source") or {}
        pages = set(range(source.get("page") or 0, (source.get("end_page") or source.get("page") or 0) + 1))
        document = source.get("document")
        found = [c["page"] in pages and c["document"] == document for c in floorless["contexts"]]
        tally["in_top"] += any(found)
        tally["in_first"] += bool(best) and found[0]
    out.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    print(json.dumps(tally))
    for kind, values in scores.items():
        print(kind, sorted(values))


if __name__ == "__main__":
    main(sys.argv[1:])
