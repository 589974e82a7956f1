"""A system under test behind a plain JSON endpoint: ``http:URL`` (or the URL itself), asked POST URL
with a JSON body made from a template, its reply read through a mapping of dotted paths. Both come from
the ``[system]`` table of assay.toml:

    [system.request]          # the body; "{question}" and "{scope}" are filled in anywhere in it
    question = "{question}"
    policy_filter_ids = ["{scope}"]

    [system.response]         # where each field of the reply is (a dotted path; a number indexes a list)
    text = "answer"
    citations = "sources"
    contexts = "retrieval.chunks"
    blocked = "guard.blocked"
    route = "brain_used"
    model = "meta.model"

A text that IS a placeholder ("{scope}") becomes the value itself: the scope, or null when the item has
none, and in a list a missing scope is left out (["{scope}"] -> []). A placeholder inside a longer text
is replaced by the text ("" for no scope). Other braces are left as they are (a template may hold JSON).

Without [system.request] the body is {"question": ..., "scope": ...}. Without [system.response] the
reply itself is the mapping answer_from reads (text/answer/response, citations, contexts, ...); with it,
only the fields it maps are read, and a path that leads nowhere is a field not given (for ``text``, a
malformed reply unless the reply is blocked). Errors are those of every HTTP system (http_common).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...cells import parse_json
from ...errors import UsageError
from ...net import display_url
from ...parts import Reply
from .base import SystemFailure, answer_from
from .http_common import (
    DEFAULT_TIMEOUT,
    JsonPoster,
    check_settings,
    check_url,
    expanded_headers,
    number_setting,
)
from .probe import PROBE_QUESTION, SystemDown, down_status

DEFAULT_REQUEST: Mapping[str, Any] = {"question": "{question}", "scope": "{scope}"}
RESPONSE_FIELDS = ("text", "citations", "contexts", "blocked", "route", "model")
OPTIONS = frozenset({"timeout"})
_MISSING = object()


@dataclass
class JsonHttpSystem:
    spec: str
    url: str
    template: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_REQUEST))
    response: Mapping[str, str] | None = None  # field -> dotted path; None: the reply is the mapping
    header_names: tuple[str, ...] = ()
    poster: JsonPoster = field(default_factory=lambda: JsonPoster(""), repr=False)

    def signature(self) -> str:
        parts = [f"http:{display_url(self.url)}", f"request={json.dumps(self.template, sort_keys=True)}"]
        if self.response is not None:
            parts.append(f"response={json.dumps(dict(self.response), sort_keys=True)}")
        parts += [f"header={name}" for name in self.header_names]
        return "|".join(parts)

    def request(self, question: str, scope: str | None) -> Any:
        """The body for one question: the template with its placeholders filled."""
        return _filled(self.template, {"{question}": question, "{scope}": scope})

    async def ask(self, question: str, scope: str | None) -> Reply:
        value, raw = await self.poster.post(self.request(question, scope))
        return answer_from(value if self.response is None else _picked(value, self.response, raw), raw=raw)

    async def probe(self) -> None:
        """The check before a run (probe.py): one POST of the request template with PROBE_QUESTION and
        no scope. Up: a reply whose status is not a down one (a 2xx must be JSON: an HTML page at the
        address is not the bot); SystemDown otherwise."""
        received = await self.poster.probe("POST", self.url, self.request(PROBE_QUESTION, None))
        down = down_status(self.url, "POST", received.status)
        if down is not None:
            raise down
        if 200 <= received.status < 300:
            try:
                parse_json(received.text)
            except ValueError:
                kind = received.headers.get("content-type", "no content type").split(";")[0].strip()
                raise SystemDown(
                    f"the system at {display_url(self.url)} answered POST with HTTP {received.status} "
                    f"and a body that is not JSON ({kind})",
                    fix="give --system the address of the bot's JSON endpoint",
                ) from None

    async def aclose(self) -> None:
        await self.poster.aclose()


def _filled(template: Any, values: Mapping[str, str | None]) -> Any:
    if isinstance(template, str):
        if template in values:
            return values[template]
        for placeholder, value in values.items():
            template = template.replace(placeholder, value or "")
        return template
    if isinstance(template, Mapping):
        return {key: _filled(item, values) for key, item in template.items()}
    if isinstance(template, Sequence):
        filled = [_filled(item, values) for item in template]
        return [item for item, given in zip(filled, template) if item is not None or given is None]
    return template  # a number, a boolean, a date from TOML: as it is


def _picked(value: Any, paths: Mapping[str, str], raw: str) -> dict[str, Any]:
    """The fields `paths` maps, read out of the reply (a path that leads nowhere: not given)."""
    found = {name: _at(value, path) for name, path in paths.items()}
    found = {name: item for name, item in found.items() if item is not _MISSING}
    if "text" in paths and "text" not in found and found.get("blocked") is not True:
        reason = f"malformed reply: nothing at {paths['text']!r} (the text, in [system.response])"
        raise SystemFailure(reason, raw)
    return found


def _at(value: Any, path: str) -> Any:
    for step in path.split("."):
        if isinstance(value, Mapping) and step in value:
            value = value[step]
        elif isinstance(value, list) and _index(step, len(value)) is not None:
            value = value[int(step)]
        else:
            return _MISSING
    return value


def _index(step: str, length: int) -> int | None:
    """A path's step as an index into a list of `length` items (negative from the end), else None."""
    if not step.lstrip("-").isdecimal() or step.count("-") > 1 or len(step) > 9:
        return None
    return int(step) if -length <= int(step) < length else None


def json_http_system(
    spec: str, url: str, settings: Mapping[str, object], config: Mapping[str, Any]
) -> JsonHttpSystem:
    """The adapter of ``http:URL`` with the request, response and headers of its [system] table."""
    check_settings(settings, OPTIONS, "an http system")
    template = config.get("request", DEFAULT_REQUEST)
    if not isinstance(template, Mapping):
        raise UsageError(
            "[system] request is not a table", fix='write [system.request] with question = "{question}"'
        )
    if "{question}" not in json.dumps(template):
        raise UsageError(
            "[system.request] never sends the question",
            fix='put "{question}" in it (question = "{question}")',
        )
    response = _response_paths(config.get("response"))
    headers = expanded_headers(config.get("headers"), "[system.headers]")
    timeout = number_setting(settings, "timeout", DEFAULT_TIMEOUT, least=0.0) or DEFAULT_TIMEOUT
    checked = check_url(url, spec)
    return JsonHttpSystem(
        spec=spec,
        url=checked,
        template=dict(template),
        response=response,
        header_names=tuple(sorted(headers)),
        poster=JsonPoster(checked, headers, timeout),
    )


def _response_paths(table: object) -> dict[str, str] | None:
    if table is None:
        return None
    if not isinstance(table, Mapping):
        raise UsageError(
            "[system] response is not a table", fix='write [system.response] with text = "answer"'
        )
    unknown = sorted(set(table) - set(RESPONSE_FIELDS))
    if unknown:
        raise UsageError(
            f"[system.response] has no field {unknown[0]!r}", fix=f"use: {', '.join(RESPONSE_FIELDS)}"
        )
    bad = [name for name, path in table.items() if not isinstance(path, str) or not path.strip()]
    if bad:
        raise UsageError(
            f"[system.response] {bad[0]} is not a dotted path", fix=f'write {bad[0]} = "data.{bad[0]}"'
        )
    return {str(name): str(path).strip() for name, path in table.items()}
