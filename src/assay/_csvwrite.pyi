from typing_extensions import Buffer

def csv_lines(columns: list[list[str]], start: int, stop: int, /) -> bytes | None: ...
def minimal_rows(lines: list[str], rows: list[list[str]], /) -> bytes: ...
def line_spans(
    source: Buffer,
    end: int,
    lines: Buffer,
    verbatim: Buffer,
    first_line: int,
    spans: Buffer,
    state: Buffer,
    first: int,
    stop: int,
    /,
) -> None: ...
def spliced_lines(
    before: list[list[str]],
    source: Buffer,
    spans: Buffer,
    middles: list[bytes | None],
    after: list[list[str]],
    start: int,
    stop: int,
    /,
) -> bytes | None: ...
def split_rows(data: Buffer, /) -> tuple[list[list[str]], bytes] | None: ...
