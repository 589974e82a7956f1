"""Fuzzing what a system replies: no reply makes assay crash, hang or keep more than its bounds.

Two fuzzers, each through the real adapter:

- **Over HTTP**: one real server on 127.0.0.1 for the whole module replies the body the current example
  sets (random JSON values: wrong types, reply-shaped mappings, nesting past the recursion limit, strings
  and lists repeated past their limits, odd Unicode, lone surrogates, numbers past int()'s digit limit,
  bytes that are not UTF-8, odd charsets and statuses), asked by the ``http`` and ``openai`` adapters.
- **In process**: the in-process adapter calls a function returning random Python values (the same
  shapes, and tuples, bytes, sets, dataclasses, Replies built wrong, generators that never end, values
  whose own ``__repr__`` or ``__len__`` raise, lists nested past the recursion limit).

Whatever comes, the call ends within a second with either a Reply whose every field is within the
bounds of limits.py (and can be written as UTF-8), or a documented failure (``SystemFailure``, or
``TransportError`` for a status worth retrying) whose reason is short and writable: the item's
``system_error``. Nothing else escapes.

Examples: ``ASSAY_FUZZ_EXAMPLES``, else 10,000 under ``CI=true`` and 200 locally, per fuzzer. The seed is
printed at the start; ``ASSAY_FUZZ_SEED=N`` replays a run.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fuzzing import SEED, examples, fuzz_settings, one_example
from hypothesis import given, seed
from hypothesis import strategies as st
from reply_server import Reply as Sent
from reply_server import ReplyServer, reply_server

from assay.harness.systems import SystemFailure, TransportError, load_system
from assay.harness.systems.base import System
from assay.harness.systems.inprocess import InProcessSystem
from assay.harness.systems.limits import (
    MAX_CITATIONS,
    MAX_CONTEXT_CHARS,
    MAX_CONTEXTS,
    MAX_DOCUMENT_CHARS,
    MAX_LABEL_CHARS,
    MAX_OFFSET,
    MAX_PAGE,
    MAX_QUOTE_CHARS,
    MAX_REPLY_CHARS,
    MAX_TOTAL_CHARS,
    RAW_LIMIT,
)
from assay.parts import Citation, Context, Reply

EXAMPLES = examples()
FUZZ = fuzz_settings(EXAMPLES)
# Seconds of the clock an example may take (its CPU is held to fuzzing's budget): what it guards is a
# client that waits for bytes that never come, so it is half the systems' timeout, far above the
# milliseconds an example takes even on a loaded machine.
SYSTEM_TIMEOUT = 20
PER_EXAMPLE_WALL = SYSTEM_TIMEOUT / 2
MAX_REASON = 2_000  # characters of a failure's reason (the runner keeps 1,000 of it)


# --- random replies --------------------------------------------------------------------------------------

AWKWARD = [
    "\ufeff", "\u200b", "\u200d", "\xad", "\ud800", "\udfff", "\x00", "\x85", "\u2028", "न", "ि", "्", "।",
    "😀", "é", "[", "]", "(", ")", ":", ",", ";", "-", "^", "p.", "Source: ", "\\", '"', " ", "\n",
]  # fmt: skip
KEYS = [
    "text", "answer", "response", "reply_text", "result", "citations", "sources", "contexts", "blocked",
    "route", "brain_used", "model", "document", "doc", "source", "title", "page", "quote", "start", "end",
    "content", "page_content", "choices", "message", "finish_reason", "refusal", "error", "type",
]  # fmt: skip
characters = st.sampled_from(AWKWARD + list("ab19")) | st.characters()
text = st.lists(characters, max_size=6).map("".join)  # pieces, some longer than a character
# A piece of text, sometimes repeated far past a bound (a 300,000-character text, a 2,000-character id).
REPEATS = [1] * 20 + [3, 130, 2_100, 25_000, 201_000]


def stretched(piece: str, length: int) -> str:
    """`piece` repeated to about `length` characters (1: as it is)."""
    piece = piece or "a"
    return piece if length <= 1 else piece * (length // len(piece) + 1)


long_text = st.builds(stretched, text, st.sampled_from(REPEATS))
cited = st.sampled_from(["[1]", "[1-20]", "[a:p3]", "[Source: d, p.2]", "(Source: d pp. 1-3)", "[a", "[1"])
citing_text = st.builds(lambda piece, times: piece * times, cited, st.sampled_from([1, 2, 5_000, 60_000]))
numbers = (
    st.integers()
    | st.sampled_from([0, -1, 1, 2**63, MAX_PAGE + 1, MAX_OFFSET + 1, 10**400])
    | st.floats(allow_nan=True, allow_infinity=True)
)
scalars = long_text | citing_text | st.none() | st.booleans() | numbers
keys = st.sampled_from(KEYS) | text
# Past a count's bound now and then (the 200,000 citations, 50,000 contexts); only lists of
# small parts are repeated, never one inside another: a value must stay cheap to draw and to send.
LIST_REPEATS = [1] * 40 + [1_001] * 2 + [50_000, 200_000]
short_scalars = text | st.none() | st.booleans() | numbers


def repeated(items: list[Any], times: int) -> list[Any]:
    """`items` cycled to `times` of them (a Python value: the same objects, cheap)."""
    return (items * times)[: max(len(items), times)] if items else items


@dataclasses.dataclass(frozen=True)
class Repeated:
    """`items` cycled to `times` of them, in a JSON body: written by repeating the items' text (encoding
    200,000 mappings one by one cost a third of a second an example)."""

    items: list[Any]
    times: int

    def written(self, ensure_ascii: bool) -> str:
        if not self.items:
            return "[]"
        inner = json.dumps(self.items, ensure_ascii=ensure_ascii, default=lambda _: Huge.MARK)[1:-1]
        cycles, rest = divmod(max(len(self.items), self.times), len(self.items))
        tail = [
            json.dumps(item, ensure_ascii=ensure_ascii, default=lambda _: Huge.MARK)
            for item in self.items[:rest]
        ]
        return "[" + ", ".join([inner] * cycles + tail) + "]"


def part(leaves: st.SearchStrategy[Any], texts: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    """A citation or a context: a text, or a mapping of its keys (the values now right, now wrong)."""
    mapping = st.fixed_dictionaries(
        {},
        optional={
            "document": st.sampled_from(["policy", "", " "]) | texts | leaves,
            "page": st.integers(1, 40) | leaves,
            "start": st.integers(0, 99) | leaves,
            "end": st.integers(0, 99) | leaves,
            "quote": texts | leaves,
            "text": texts | leaves,
        },
    )
    return texts | mapping | leaves


Containers = Callable[[st.SearchStrategy[Any]], st.SearchStrategy[Any]]


@dataclasses.dataclass(frozen=True)
class Shapes:
    """The strategies of one kind of value (JSON's, or Python's), each built once: a strategy built
    inside a draw is derived again at every draw (50 ms an example, 8 minutes for 10,000)."""

    values: st.SearchStrategy[Any]  # any value, nested a little
    reply: st.SearchStrategy[Any]  # a mapping as a system replies, every field now right, now wrong


def shapes(
    leaves: st.SearchStrategy[Any],
    short: st.SearchStrategy[Any],
    containers: Containers,
    repeat: Callable[[list[Any], int], Any],
) -> Shapes:
    values = st.recursive(leaves, containers, max_leaves=5)
    one = part(leaves | values, long_text | citing_text)
    many = part(short, text)  # repeated: small parts only
    text_value, label = long_text | citing_text | values, long_text | values

    @st.composite
    def reply(draw: st.DrawFn) -> dict[str, Any]:
        fields = {draw(st.sampled_from(["text", "answer", "response", "result"])): draw(text_value)}
        for name in draw(st.lists(st.sampled_from(["citations", "contexts", "route", "model", "blocked"]))):
            if name in ("citations", "contexts"):
                times = draw(st.sampled_from(LIST_REPEATS))
                fields[name] = repeat(draw(st.lists(one if times == 1 else many, max_size=3)), times)
            else:
                fields[name] = draw(st.booleans() | values if name == "blocked" else label)
        return fields

    return Shapes(values, reply())


def nested(value: Any, depth: int) -> Any:
    for _ in range(depth):
        value = [value]
    return value


# Past the parser's recursion limit now and then (a million deep, the case, is
# test_reply_limits.py's: a second a time is too dear for thousands of examples).
DEPTHS = [0] * 30 + [40, 1_500, 20_000]
PYTHON_DEPTHS = DEPTHS


# --- over HTTP ---------------------------------------------------------------------------------------------


class Huge:
    """A number of 5,000 digits, written into the JSON text as digits (json.dumps cannot)."""

    MARK = "7f3c-huge-number-5e1a"


def json_text(value: Any, ensure_ascii: bool, depth: int) -> str:
    """The value's JSON inside `depth` arrays (written by hand: json.dumps recurses), a Huge as digits,
    a Repeated as its repeated items."""
    found: dict[str, Repeated] = {}

    def marked(item: Any) -> str:
        if isinstance(item, Repeated):
            found[f"7f3c-repeated-{id(item)}"] = item
            return f"7f3c-repeated-{id(item)}"
        return Huge.MARK

    written = json.dumps(value, ensure_ascii=ensure_ascii, default=marked)
    for mark, item in found.items():
        written = written.replace(f'"{mark}"', item.written(ensure_ascii))
    return "[" * depth + written.replace(f'"{Huge.MARK}"', "9" * 5_000) + "]" * depth


JUNK = [b"\xff", b"\xc0\x80", b"\x00", b"}"]  # bytes that spoil a body: not UTF-8, a NUL, a stray brace


JSON = shapes(
    scalars | st.builds(Huge),
    short_scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=4),
    Repeated,
)
COMPLETION_EXTRAS = st.dictionaries(keys, JSON.values, max_size=2)


@st.composite
def bodies(draw: st.DrawFn) -> Sent:
    """A body the server sends: JSON of a random value (or a completion holding it), its bytes now and
    then spoilt, with a status and a content type."""
    value = draw(JSON.reply | JSON.values)
    if draw(st.booleans()):  # as a chat completion carries it
        value = {"choices": [{"message": {"content": value}}], **draw(COMPLETION_EXTRAS)}
    written = json_text(value, ensure_ascii=draw(st.booleans()), depth=draw(st.sampled_from(DEPTHS)))
    data = written.encode("utf-8", "surrogatepass")
    for place, junk in draw(st.lists(st.tuples(st.integers(0), st.sampled_from(JUNK)), max_size=2)):
        at = place % (len(data) + 1)
        data = data[:at] + junk + data[at:]
    status = draw(st.sampled_from([200] * 20 + [201, 204, 301, 404, 429, 500, 503]))
    charset = draw(st.sampled_from(["", "", "; charset=utf-8", "; charset=latin-1", "; charset=x-nonsense"]))
    return Sent(body=data, status=status, headers={"Content-Type": f"application/json{charset}"})


@pytest.fixture(scope="module")
def server() -> Iterator[ReplyServer]:
    with reply_server() as found:
        yield found


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """One event loop for the module: the systems' HTTP clients live in it across examples."""
    found = asyncio.new_event_loop()
    yield found
    found.close()


@pytest.fixture(scope="module")
def http_systems(server: ReplyServer, loop: asyncio.AbstractEventLoop) -> Iterator[dict[str, System]]:
    systems = {
        "http": load_system(f"http:{server.url}/ask", {"timeout": str(SYSTEM_TIMEOUT)}),
        "openai": load_system(f"openai:{server.url}/v1", {"model": "m", "timeout": str(SYSTEM_TIMEOUT)}),
    }
    yield systems
    for system in systems.values():
        loop.run_until_complete(system.aclose())


@seed(SEED)
@FUZZ
@given(sent=bodies(), kind=st.sampled_from(["http", "openai"]))
def test_any_http_body_is_a_bounded_reply_or_the_items_system_error(
    server: ReplyServer,
    http_systems: dict[str, System],
    loop: asyncio.AbstractEventLoop,
    sent: Sent,
    kind: str,
) -> None:
    server.reply = sent
    with timed(f"a body of {len(sent.body):,} bytes: {sent.body[:80]!r}"):
        outcome = loop.run_until_complete(asked(http_systems[kind]))
    check_outcome(outcome, hostile=False)


async def asked(system: System) -> Reply | Exception:
    """The system's Reply, or the documented failure it raised (anything else escapes: the bug)."""
    try:
        return await system.ask("What is the grace period?", "policy")
    except (SystemFailure, TransportError) as exc:
        return exc


# --- in process --------------------------------------------------------------------------------------------


class RaisesOnRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class LyingSequence(list[Any]):
    """A list whose length cannot be read."""

    def __len__(self) -> int:
        raise RuntimeError("no length")


@dataclasses.dataclass
class BotReply:
    text: Any
    citations: Any = None
    contexts: Any = None
    route: Any = None


def endless() -> Iterator[int]:
    return itertools.count()


HOSTILE = (RaisesOnRepr, LyingSequence)
python_leaves = (
    scalars
    | st.binary(max_size=8)
    | st.builds(lambda: 10**5_000)  # repr() refuses it
    | st.builds(endless)
    | st.builds(RaisesOnRepr)
    | st.builds(LyingSequence, st.lists(text, max_size=2))
    | st.builds(object)
)


PYTHON = shapes(
    python_leaves,
    short_scalars | st.binary(max_size=4),
    lambda children: (
        st.lists(children, max_size=3)
        | st.lists(children, max_size=3).map(tuple)
        | st.frozensets(st.sampled_from([1, "a", None]), max_size=2)
        | st.dictionaries(keys, children, max_size=4)
        | st.builds(BotReply, children, children, children, children)
    ),
    repeated,
)
# A Citation or a Context built around any value (wrong types included: a Reply is not checked when it
# is made, only when it is read).
BUILT_PARTS = st.one_of(
    st.builds(Citation, long_text | PYTHON.values, st.none() | numbers | PYTHON.values, st.none(), st.none(),
              st.none() | long_text),
    st.builds(Context, long_text | PYTHON.values, st.none() | numbers, st.none() | numbers, st.none(),
              long_text | PYTHON.values),
)  # fmt: skip
BUILT_REPLIES = st.builds(
    Reply,
    st.none() | long_text | PYTHON.values,
    st.lists(BUILT_PARTS, max_size=3).map(tuple) | PYTHON.values,
    st.lists(BUILT_PARTS, max_size=3).map(tuple) | PYTHON.values,
    st.none() | long_text | PYTHON.values,
)
BIG_LISTS = st.builds(repeated, st.lists(short_scalars, max_size=2), st.sampled_from(LIST_REPEATS))


@st.composite
def returned(draw: st.DrawFn) -> Any:
    shape = draw(PYTHON.reply | PYTHON.values | BUILT_REPLIES | BIG_LISTS)
    return nested(shape, draw(st.sampled_from(PYTHON_DEPTHS)))


def contains_hostile(value: Any, budget: int = 2_000) -> bool:
    """Whether a value holds one of the HOSTILE objects (looked for in its first `budget` parts)."""
    stack = [value]
    while stack and budget > 0:
        budget -= 1
        item = stack.pop()
        if isinstance(item, HOSTILE):
            return True
        if isinstance(item, (list, tuple)):
            stack.extend(item[:50])
        elif isinstance(item, dict):
            stack.extend(list(item.values())[:50])
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            stack.extend(getattr(item, field.name) for field in dataclasses.fields(item))
    return False


@seed(SEED)
@FUZZ
@given(value=returned(), is_async=st.booleans())
def test_any_python_value_is_a_bounded_reply_or_the_items_system_error(
    loop: asyncio.AbstractEventLoop, value: Any, is_async: bool
) -> None:
    def function(question: str, scope: str | None = None) -> Any:
        return value

    async def coroutine(question: str, scope: str | None = None) -> Any:
        return value

    system = InProcessSystem("fuzz:answer", coroutine if is_async else function)
    with timed(f"a {type(value).__name__}"):
        outcome = loop.run_until_complete(asked(system))
    check_outcome(outcome, hostile=contains_hostile(value))


# --- what every outcome must be ---------------------------------------------------------------------------


@contextlib.contextmanager
def timed(what: str) -> Iterator[None]:
    """The block within the fuzzers' budget of CPU (``fuzzing.one_example``) and PER_EXAMPLE_WALL of the
    clock."""
    wall = time.monotonic()
    with one_example(what):
        yield
    wall = time.monotonic() - wall
    assert wall < PER_EXAMPLE_WALL, f"{wall:.2f} s for {what}"


def check_outcome(outcome: Reply | Exception, hostile: bool) -> None:
    if isinstance(outcome, Exception):
        reason, raw = outcome.reason, getattr(outcome, "raw", None)  # type: ignore[attr-defined]
        assert isinstance(reason, str) and reason and len(reason) <= MAX_REASON, reason[:300]
        reason.encode("utf-8")  # written to run.jsonl as it is
        assert raw is None or len(raw) <= RAW_LIMIT + 10
        # assay's own bug would read as the value's: only a value with a hostile part may have it
        assert hostile or not reason.startswith("reading what the function returned"), reason
        return
    check_bounded(outcome)


def check_bounded(reply: Reply) -> None:
    """Every field of a Reply within its bound, every text writable as UTF-8."""
    assert isinstance(reply.text, str) and len(reply.text) <= MAX_REPLY_CHARS
    assert len(reply.citations) <= MAX_CITATIONS and len(reply.contexts) <= MAX_CONTEXTS
    assert reply.raw is None or len(reply.raw) <= RAW_LIMIT + 10
    texts = [reply.text, reply.route or "", reply.model or "", reply.raw or ""]
    for label in (reply.route, reply.model):
        assert label is None or (isinstance(label, str) and len(label) <= MAX_LABEL_CHARS)
    for part in (*reply.citations, *reply.contexts):
        assert isinstance(part.document, str) and len(part.document) <= MAX_DOCUMENT_CHARS
        assert part.page is None or (type(part.page) is int and 0 <= part.page <= MAX_PAGE)
        for offset in (part.start, part.end):
            assert offset is None or (type(offset) is int and 0 <= offset <= MAX_OFFSET)
        extra, limit = (
            (part.quote, MAX_QUOTE_CHARS) if isinstance(part, Citation) else (part.text, MAX_CONTEXT_CHARS)
        )
        assert extra is None or (isinstance(extra, str) and len(extra) <= limit)
        texts += [part.document, extra or ""]
    assert sum(map(len, texts)) <= MAX_TOTAL_CHARS + len(reply.raw or "")
    for written in texts:
        written.encode("utf-8")  # no lone surrogate: every writer can write it
    assert reply.blocked in (None, True, False)
