"""squad_em + squad_f1 and mlqa_em + mlqa_f1 against the official SQuAD v1.1 and MLQA scripts
(restated in ``squad_official.py``), on the same synthetic questions in one run.

Two comparisons, each like with like:

- *scoring*: both sides in this process, given the rows already read (the reference its parsed
  dataset and predictions; assay a loaded ``Dataset``), each timed in CPU seconds from there to the
  dataset's EM and F1 (assay's per-row verdicts and summary included). This is the target (>= 5x): it
  is the metric's own cost, on one core on both sides.
- *end to end*: each as a command in a fresh process: the official script reading its SQuAD-format JSON
  dataset and predictions, and ``assay score --metric squad_f1 --metric squad_em`` reading the same rows
  as JSONL with an ``answers`` list (its start-up, reading, scoring and report). Printed as CPU seconds
  (assay's worker processes included) and wall seconds; informative, not a target (assay's start-up
  and file reading are other benches' targets).

Every round runs the two sides back to back, alternating which goes first; the figures are medians.

    python bench/bench_squad.py              # 100,000 rows, 5 rounds
    python bench/bench_squad.py --quick      # 10,000 rows, one round end to end
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import squad_official
from targets import Target, print_targets

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
OFFICIAL = HERE / "squad_official.py"
TARGET = 5.0

# --- synthetic questions -----------------------------------------------------------------------------------

# Words per language, with the articles each MLQA rule drops among them, so the article steps do work.
WORDS = {
    "en": "the a an river Nile Denver Broncos tower Eiffel 1947 season war treaty of in and king "
    "empire university $3.5 million Paris left-wing O'Neil's 25% e.g. steam-engine",
    "es": "el la los las un una río ciudad año guerra rey imperio España de y en 1492 «nueva» "
    "tratado ¿cuál? universidad",
    "de": "der die das den dem des ein eine einen Fluss Stadt Krieg König Reich Vertrag Universität "
    "und von 1871 „Berlin“ Straße",
    "vi": "của là cái chiếc những sông thành phố năm chiến tranh vua đế quốc Hà Nội và 1945 “Việt” "
    "trường đại học",
    "hi": "नदी शहर वर्ष युद्ध राजा साम्राज्य दिल्ली और का की में १९४७ 1947 विश्वविद्यालय संधि। गंगा",
    "ar": "النهر المدينة السنة الحرب الملك الإمبراطورية القاهرة و في من ١٩٥٢ 1952 «مصر» الجامعة، معاهدة",
    "zh": "黄河 北京 战争 皇帝 帝国 条约 大学 1949年 和 的 在 《长江》 上海\uff0c中国。 清朝 “孙中山”",
}
SQUAD_LANG = "en"


@dataclass(frozen=True)
class Question:
    id: str
    lang: str
    answers: tuple[str, ...]
    prediction: str


def questions(rows: int, langs: tuple[str, ...], seed: int = 0) -> list[Question]:
    """SQuAD-like questions: one to three ground truths (often repeats or variants of one span, as
    SQuAD's dev set has) and a prediction that is the span, a variant, a longer or shorter span, a
    sentence around it, another question's answer, or (rarely) empty."""
    rng = random.Random(seed)
    vocabularies = {lang: WORDS[lang].split() for lang in langs}
    made = []
    for index in range(rows):
        lang = langs[index % len(langs)]
        words = vocabularies[lang]
        span = rng.sample(words, rng.randint(1, 4))
        first = " ".join(span)
        variants = [first, first, first.upper(), " ".join(span[1:] or span), f"{rng.choice(words)} {first}"]
        answers = (first, *rng.sample(variants, rng.randint(0, 2)))
        made.append(Question(f"q{index}", lang, answers, prediction(rng, words, span, made)))
    return made


def prediction(rng: random.Random, words: list[str], span: list[str], made: list[Question]) -> str:
    kind = rng.random()
    if kind < 0.35:
        return " ".join(span)
    if kind < 0.5:
        return " ".join(span).title() + rng.choice([".", "!", ",", ""])
    if kind < 0.65:
        return " ".join([*span, *rng.sample(words, 2)])
    if kind < 0.75:
        return " ".join(span[:-1] or span)
    if kind < 0.88:  # a sentence-long answer around the span
        return " ".join([*rng.sample(words, 6), *span, *rng.sample(words, 6)]) + "."
    if kind < 0.99 and made:
        return made[rng.randrange(len(made))].answers[0]
    return ""


def official_files(items: list[Question], workdir: Path) -> list[tuple[Path, Path, str]]:
    """Each language's SQuAD-format dataset and predictions file, as the official scripts read them."""
    written = []
    for lang in sorted({item.lang for item in items}):
        mine = [item for item in items if item.lang == lang]
        qas = [{"id": q.id, "question": "?", "answers": [{"text": a} for a in q.answers]} for q in mine]
        dataset = {"version": "1.1", "data": [{"title": lang, "paragraphs": [{"context": "", "qas": qas}]}]}
        paths = (workdir / f"dataset.{lang}.json", workdir / f"predictions.{lang}.json")
        paths[0].write_text(json.dumps(dataset, ensure_ascii=False), encoding="utf-8")
        paths[1].write_text(
            json.dumps({q.id: q.prediction for q in mine}, ensure_ascii=False), encoding="utf-8"
        )
        written.append((*paths, lang))
    return written


def assay_file(items: list[Question], path: Path) -> Path:
    """The same rows as assay reads them: JSONL with the ground truths as an `answers` list."""
    with path.open("w", encoding="utf-8") as handle:
        for q in items:
            row = {
                "id": q.id,
                "question": "?",
                "answers": list(q.answers),
                "response": q.prediction,
                "lang": q.lang,
            }
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


# --- timing ------------------------------------------------------------------------------------------------


@dataclass
class Figures:
    """Median seconds of each side of one comparison."""

    reference: float
    assay: float

    @property
    def ratio(self) -> float:
        return self.reference / self.assay


def alternating(rounds: int, first: Callable[[], float], second: Callable[[], float]) -> Figures:
    """Median seconds of each of two measurements over `rounds` rounds, alternating which runs first."""
    times: tuple[list[float], list[float]] = ([], [])
    for round_ in range(rounds):
        order = [(0, first), (1, second)] if round_ % 2 == 0 else [(1, second), (0, first)]
        for side, measure in order:
            times[side].append(measure())
    return Figures(statistics.median(times[0]), statistics.median(times[1]))


def timed(work: Callable[[], object]) -> Callable[[], float]:
    """CPU seconds of `work` in this process: both sides run on one core, and a shared machine's load
    stretches wall time without adding CPU."""

    def measure() -> float:
        started = time.process_time()
        work()
        return time.process_time() - started

    return measure


@contextmanager
def assay_on_path() -> Iterator[None]:
    sys.path.insert(0, str(SRC))
    try:
        yield
    finally:
        sys.path.remove(str(SRC))


def scoring(family: str, items: list[Question], workdir: Path, rounds: int) -> Figures:
    """Seconds from the rows read to the dataset's EM and F1, on each side, in this process."""
    with assay_on_path():
        from assay import load_records, score

    files = official_files(items, workdir)
    parsed = [
        (json.loads(d.read_text(encoding="utf-8"))["data"], json.loads(p.read_text(encoding="utf-8")), lang)
        for d, p, lang in files
    ]
    dataset = load_records(assay_file(items, workdir / "rows.jsonl"))
    metrics = [f"{family}_em", f"{family}_f1"]
    if family == "squad":

        def reference() -> object:
            return [squad_official.squad_evaluate(data, predictions) for data, predictions, _ in parsed]
    else:
        squad_official.mlqa_punct()  # the script builds it at import: not scoring

        def reference() -> object:
            return [
                squad_official.mlqa_evaluate(data, predictions, lang) for data, predictions, lang in parsed
            ]

    score(dataset, metrics)  # warm-up: imports and tables built once per process are not scoring
    return alternating(rounds, timed(reference), timed(lambda: score(dataset, metrics)))


def cpu_and_wall(command: list[str]) -> tuple[float, float]:
    """CPU seconds (user + system, children included) and wall seconds of one command, which must succeed."""
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=_environment())
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return env


def end_to_end(family: str, items: list[Question], workdir: Path, rounds: int) -> tuple[Figures, Figures]:
    """CPU and wall seconds of the official script's command and of `assay score`, each a fresh process."""
    files = official_files(items, workdir)
    arguments = [str(part) for d, p, lang in files for part in ((d, p, lang) if family == "mlqa" else (d, p))]
    official = [sys.executable, str(OFFICIAL), family, *arguments]
    rows = assay_file(items, workdir / "rows.jsonl")
    assay = [sys.executable, "-m", "assay", "score", "--responses", str(rows)]
    assay += ["--metric", f"{family}_f1", "--metric", f"{family}_em"]
    cpu_and_wall(assay)  # warm-up: bytecode written, files in the page cache
    measured: dict[str, list[tuple[float, float]]] = {"official": [], "assay": []}
    for round_ in range(rounds):
        for name in ("official", "assay") if round_ % 2 == 0 else ("assay", "official"):
            measured[name].append(cpu_and_wall(official if name == "official" else assay))
    cpu = Figures(*(statistics.median(t[0] for t in measured[name]) for name in ("official", "assay")))
    wall = Figures(*(statistics.median(t[1] for t in measured[name]) for name in ("official", "assay")))
    return cpu, wall


# --- targets -----------------------------------------------------------------------------------------------

FAMILIES = {
    "squad": ("squad_f1+squad_em", "the official SQuAD v1.1 script", (SQUAD_LANG,)),
    "mlqa": ("mlqa_f1+mlqa_em", "the official MLQA script", tuple(WORDS)),
}


def targets(quick: bool, rounds: int | None = None, end_to_end_too: bool = True) -> list[Target]:
    rows = 10_000 if quick else 100_000
    rounds = rounds or (3 if quick else 5)
    measured = []
    for family, (metrics, official, langs) in FAMILIES.items():
        items = questions(rows, langs)
        with tempfile.TemporaryDirectory() as tmp:
            figures = scoring(family, items, Path(tmp), rounds)
            measured.append(
                Target(
                    "squad",
                    f"{metrics} at {rows:,} rows vs {official} (scoring)",
                    figures.ratio,
                    TARGET,
                    unit="x faster",
                    at_most=False,
                    detail=f"{figures.assay:.2f} vs {figures.reference:.2f} s of CPU, rows already read",
                )
            )
            if end_to_end_too:
                cpu, wall = end_to_end(family, items, Path(tmp), 1 if quick else rounds)
                print(
                    f"  squad      {metrics} end to end (read JSON / JSONL, score, report): "
                    f"CPU {cpu.assay:.2f} vs {cpu.reference:.2f} s ({cpu.ratio:.2f}x), "
                    f"wall {wall.assay:.2f} vs {wall.reference:.2f} s ({wall.ratio:.2f}x)",
                    flush=True,
                )
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="10,000 rows instead of 100,000")
    parser.add_argument("--rounds", type=int, help="rounds of alternating runs (default 5; 3 with --quick)")
    parser.add_argument("--scoring-only", action="store_true", help="skip the end-to-end commands")
    args = parser.parse_args()
    met = print_targets(targets(args.quick, args.rounds, not args.scoring_only))
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
