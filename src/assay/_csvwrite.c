/* CSV lines of text columns, as csv.writer's default (excel) dialect writes them, straight to UTF-8.
 *
 * --out at a million rows is mostly the input's own cells written back: csv.writer looks at every
 * character, builds a buffer of 4 bytes a character, then a string, then its UTF-8, one row at a time.
 * Here each row of the columns is written at once into one UTF-8 buffer: a cell is quoted exactly when
 * it holds a comma, a quote or a line end (QUOTE_MINIMAL), its quotes doubled; a one-cell row whose
 * cell is empty is written "" (as csv.writer does, so the line is not blank); lines end in \r\n.
 *
 * Every cell must be a str; anything else, or a lone surrogate (which UTF-8 cannot hold), returns None
 * and the caller writes those rows with csv.writer (report/rows.py), which is the reference.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

typedef struct {
    char *data;
    Py_ssize_t size, capacity;
} Buffer;

static int reserve(Buffer *b, Py_ssize_t more) {
    if (b->size + more <= b->capacity) return 0;
    Py_ssize_t capacity = b->capacity ? b->capacity : 1 << 16;
    while (capacity < b->size + more) capacity *= 2;
    char *grown = PyMem_Realloc(b->data, (size_t)capacity);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = grown;
    b->capacity = capacity;
    return 0;
}

/* Does the cell need quotes (a comma, a quote, \r or \n)? */
static int needs_quotes(PyObject *cell) {
    Py_ssize_t length = PyUnicode_GET_LENGTH(cell);
    int kind = PyUnicode_KIND(cell);
    if (kind == PyUnicode_1BYTE_KIND) { /* memchr is the C library's fastest scan */
        const char *s = (const char *)PyUnicode_1BYTE_DATA(cell);
        return memchr(s, ',', (size_t)length) || memchr(s, '"', (size_t)length) ||
               memchr(s, '\n', (size_t)length) || memchr(s, '\r', (size_t)length);
    }
#define SCAN(TYPE)                                                           \
    {                                                                        \
        const TYPE *s = (const TYPE *)PyUnicode_DATA(cell);                  \
        for (Py_ssize_t i = 0; i < length; i++) {                            \
            TYPE c = s[i];                                                   \
            if (c == ',' || c == '"' || c == '\r' || c == '\n') return 1;    \
        }                                                                    \
        return 0;                                                            \
    }
    if (kind == PyUnicode_2BYTE_KIND) SCAN(Py_UCS2)
    SCAN(Py_UCS4)
#undef SCAN
}

/* Append the cell's UTF-8 (quotes doubled when `quoted`); 1 on a lone surrogate, -1 on error. */
static int append_cell(Buffer *b, PyObject *cell, int quoted) {
    Py_ssize_t length = PyUnicode_GET_LENGTH(cell);
    int kind = PyUnicode_KIND(cell);
    if (reserve(b, 4 * length + 2) < 0) return -1; /* a doubled quote takes 2 bytes of its 4 */
    unsigned char *out = (unsigned char *)b->data + b->size;
    if (quoted) *out++ = '"';
    if (PyUnicode_IS_ASCII(cell) && !quoted) {
        memcpy(out, PyUnicode_1BYTE_DATA(cell), (size_t)length);
        out += length;
    } else {
#define ENCODE(TYPE)                                                         \
    {                                                                        \
        const TYPE *s = (const TYPE *)PyUnicode_DATA(cell);                  \
        for (Py_ssize_t i = 0; i < length; i++) {                            \
            Py_UCS4 c = s[i];                                                \
            if (c < 0x80) {                                                  \
                if (c == '"' && quoted) *out++ = '"';                        \
                *out++ = (unsigned char)c;                                   \
            } else if (c < 0x800) {                                          \
                *out++ = (unsigned char)(0xC0 | (c >> 6));                   \
                *out++ = (unsigned char)(0x80 | (c & 0x3F));                 \
            } else if (c < 0x10000) {                                        \
                if (c >= 0xD800 && c <= 0xDFFF) return 1;                    \
                *out++ = (unsigned char)(0xE0 | (c >> 12));                  \
                *out++ = (unsigned char)(0x80 | ((c >> 6) & 0x3F));          \
                *out++ = (unsigned char)(0x80 | (c & 0x3F));                 \
            } else {                                                         \
                *out++ = (unsigned char)(0xF0 | (c >> 18));                  \
                *out++ = (unsigned char)(0x80 | ((c >> 12) & 0x3F));         \
                *out++ = (unsigned char)(0x80 | ((c >> 6) & 0x3F));          \
                *out++ = (unsigned char)(0x80 | (c & 0x3F));                 \
            }                                                                \
        }                                                                    \
    }
        if (kind == PyUnicode_1BYTE_KIND)
            ENCODE(Py_UCS1)
        else if (kind == PyUnicode_2BYTE_KIND)
            ENCODE(Py_UCS2)
        else
            ENCODE(Py_UCS4)
#undef ENCODE
    }
    if (quoted) *out++ = '"';
    b->size = (Py_ssize_t)((char *)out - b->data);
    return 0;
}

static PyObject *csv_lines(PyObject *self, PyObject *args) {
    PyObject *columns;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "O!nn", &PyList_Type, &columns, &start, &stop)) return NULL;
    Py_ssize_t width = PyList_GET_SIZE(columns);
    for (Py_ssize_t c = 0; c < width; c++) {
        PyObject *column = PyList_GET_ITEM(columns, c);
        if (!PyList_Check(column) || PyList_GET_SIZE(column) < stop) {
            PyErr_SetString(PyExc_ValueError, "each column must be a list of at least `stop` cells");
            return NULL;
        }
    }
    Buffer b = {NULL, 0, 0};
    for (Py_ssize_t row = start; row < stop; row++) {
        for (Py_ssize_t c = 0; c < width; c++) {
            PyObject *cell = PyList_GET_ITEM(PyList_GET_ITEM(columns, c), row);
            if (!PyUnicode_Check(cell)) goto fall_back;
            int quoted = needs_quotes(cell) || (width == 1 && PyUnicode_GET_LENGTH(cell) == 0);
            if (c) {
                if (reserve(&b, 1) < 0) goto error;
                b.data[b.size++] = ',';
            }
            int found = append_cell(&b, cell, quoted);
            if (found < 0) goto error;
            if (found > 0) goto fall_back;
        }
        if (reserve(&b, 2) < 0) goto error;
        b.data[b.size++] = '\r';
        b.data[b.size++] = '\n';
    }
    PyObject *lines = PyBytes_FromStringAndSize(b.data ? b.data : "", b.size);
    PyMem_Free(b.data);
    return lines;
fall_back:
    PyMem_Free(b.data);
    Py_RETURN_NONE;
error:
    PyMem_Free(b.data);
    return NULL;
}

/* minimal_rows(lines, rows) -> bytes: 1 where rows[i] (the cells the csv module read from lines[i],
 * a line without its line end) is written by csv.writer as exactly that line, else 0.
 *
 * A cell can stand in a line unquoted, or quoted with its quotes doubled; csv.writer picks the
 * shorter one it may (QUOTE_MINIMAL), so the line is csv.writer's own exactly when its length is the
 * sum of the cells' written lengths and the commas between them (a strict parse admits no other forms).
 * A row of one empty cell is 0: csv.writer writes it "" alone, but empty beside other cells. */
static PyObject *minimal_rows(PyObject *self, PyObject *args) {
    PyObject *lines, *rows;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &lines, &PyList_Type, &rows)) return NULL;
    Py_ssize_t count = PyList_GET_SIZE(rows);
    if (PyList_GET_SIZE(lines) != count) {
        PyErr_SetString(PyExc_ValueError, "one line per row");
        return NULL;
    }
    PyObject *flags = PyBytes_FromStringAndSize(NULL, count);
    if (flags == NULL) return NULL;
    char *flag = PyBytes_AS_STRING(flags);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *line = PyList_GET_ITEM(lines, i), *row = PyList_GET_ITEM(rows, i);
        flag[i] = 0;
        if (!PyUnicode_Check(line) || !PyList_Check(row) || PyList_GET_SIZE(row) == 0) continue;
        Py_ssize_t width = PyList_GET_SIZE(row), total = width - 1;
        int ok = 1;
        for (Py_ssize_t c = 0; c < width && ok; c++) {
            PyObject *cell = PyList_GET_ITEM(row, c);
            if (!PyUnicode_Check(cell)) {
                ok = 0;
                break;
            }
            Py_ssize_t length = PyUnicode_GET_LENGTH(cell);
            if (width == 1 && length == 0) /* written "" alone, but not among --out's other cells */
                ok = 0;
            else if (needs_quotes(cell)) {
                Py_ssize_t quotes = 0;
                int kind = PyUnicode_KIND(cell);
                const void *data = PyUnicode_DATA(cell);
                for (Py_ssize_t k = 0; k < length; k++) quotes += PyUnicode_READ(kind, data, k) == '"';
                total += length + 2 + quotes;
            } else
                total += length;
        }
        flag[i] = (char)(ok && total == PyUnicode_GET_LENGTH(line));
    }
    return flags;
}

/* line_spans(source, end, lines, verbatim, first_line, spans, state, first, stop): for each row r of
 * first..stop with verbatim[r], the byte span of its line, numbered lines[r] (the first numbered
 * `first_line`; lines end in \n, or at byte `end`), without its line end, as spans[2r] (offset) and
 * spans[2r+1] (length); -1 where not verbatim[r]. `state` holds the offset of a line and that line's
 * index, (start of the lines, 0) at first, and is left at the last line found,
 * so the next rows go on from there. The lines asked for must not go back; a line past `end` is an
 * error. `lines`, `spans` and `state` are arrays of 64-bit integers. */
static PyObject *line_spans(PyObject *self, PyObject *args) {
    Py_buffer source, lines, verbatim, spans, state;
    Py_ssize_t end, first_line, first, stop;
    if (!PyArg_ParseTuple(args, "y*ny*y*nw*w*nn", &source, &end, &lines, &verbatim, &first_line, &spans,
                          &state, &first, &stop))
        return NULL;
    PyObject *result = NULL;
    const long long *number = (const long long *)lines.buf;
    const char *copied = (const char *)verbatim.buf;
    long long *out = (long long *)spans.buf, *where = (long long *)state.buf;
    if (lines.itemsize != 8 || spans.itemsize != 8 || state.itemsize != 8 || state.len < 16 ||
        spans.len < 2 * lines.len || first < 0 || stop > lines.len / 8 || stop > verbatim.len ||
        end > source.len ||
        where[0] < 0 || where[0] > end) {
        PyErr_SetString(PyExc_ValueError, "bad arguments to line_spans");
        goto done;
    }
    const char *data = (const char *)source.buf;
    Py_ssize_t at = (Py_ssize_t)where[0]; /* where line `line` starts */
    long long line = where[1];
    for (Py_ssize_t r = first; r < stop; r++) {
        long long want = number[r] - first_line;
        if (!copied[r]) {
            out[2 * r] = out[2 * r + 1] = -1;
            continue;
        }
        if (want < line) {
            PyErr_SetString(PyExc_ValueError, "line_spans: lines must not go back");
            goto done;
        }
        while (line < want) {
            const char *found = at < end ? memchr(data + at, '\n', (size_t)(end - at)) : NULL;
            if (found == NULL) {
                PyErr_SetString(PyExc_ValueError, "line_spans: a line past the end");
                goto done;
            }
            at = (Py_ssize_t)(found - data) + 1;
            line++;
        }
        const char *found = at < end ? memchr(data + at, '\n', (size_t)(end - at)) : NULL;
        Py_ssize_t stop_at = found ? (Py_ssize_t)(found - data) : end;
        if (found && stop_at > at && data[stop_at - 1] == '\r') stop_at--;
        out[2 * r] = at;
        out[2 * r + 1] = stop_at - at;
    }
    where[0] = at;
    where[1] = line;
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&source);
    PyBuffer_Release(&lines);
    PyBuffer_Release(&verbatim);
    PyBuffer_Release(&spans);
    PyBuffer_Release(&state);
    return result;
}

/* Append `width` cells of row `row` of `columns`, each after a comma when `comma`; 1 to fall back. */
static int append_cells(Buffer *b, PyObject *columns, Py_ssize_t row, int comma) {
    for (Py_ssize_t c = 0; c < PyList_GET_SIZE(columns); c++) {
        PyObject *cell = PyList_GET_ITEM(PyList_GET_ITEM(columns, c), row);
        if (!PyUnicode_Check(cell)) return 1;
        if (comma || c) {
            if (reserve(b, 1) < 0) return -1;
            b->data[b->size++] = ',';
        }
        int found = append_cell(b, cell, needs_quotes(cell));
        if (found) return found;
    }
    return 0;
}

/* spliced_lines(before, source, spans, middles, after, start, stop) -> bytes | None: rows start..stop
 * whose cells are the text columns `before`, then the row's input cells as the input file holds them
 * (source[spans[2r] : spans[2r] + spans[2r+1]]) or, where spans[2r] < 0, as middles[r] (bytes, the
 * cells already written), then the text columns `after`; lines end in \r\n. The rows have two cells
 * or more. None as for csv_lines. */
static PyObject *spliced_lines(PyObject *self, PyObject *args) {
    PyObject *before, *middles, *after;
    Py_buffer source, spans;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "O!y*y*O!O!nn", &PyList_Type, &before, &source, &spans, &PyList_Type,
                          &middles, &PyList_Type, &after, &start, &stop))
        return NULL;
    PyObject *lines = NULL;
    Buffer b = {NULL, 0, 0};
    const long long *span = (const long long *)spans.buf;
    int bad = spans.itemsize != 8 || spans.len < 16 * stop || PyList_GET_SIZE(middles) < stop || start < 0;
    for (Py_ssize_t c = 0; c < PyList_GET_SIZE(before) && !bad; c++) {
        PyObject *column = PyList_GET_ITEM(before, c);
        bad = !PyList_Check(column) || PyList_GET_SIZE(column) < stop;
    }
    for (Py_ssize_t c = 0; c < PyList_GET_SIZE(after) && !bad; c++) {
        PyObject *column = PyList_GET_ITEM(after, c);
        bad = !PyList_Check(column) || PyList_GET_SIZE(column) < stop;
    }
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "bad arguments to spliced_lines");
        goto done;
    }
    for (Py_ssize_t row = start; row < stop; row++) {
        int found = append_cells(&b, before, row, 0);
        if (found < 0) goto done;
        if (found > 0) goto fall_back;
        const char *from;
        Py_ssize_t length;
        if (span[2 * row] >= 0) {
            if (span[2 * row] + span[2 * row + 1] > source.len) {
                PyErr_SetString(PyExc_ValueError, "a span past the source");
                goto done;
            }
            from = (const char *)source.buf + span[2 * row];
            length = (Py_ssize_t)span[2 * row + 1];
        } else {
            PyObject *middle = PyList_GET_ITEM(middles, row);
            if (!PyBytes_Check(middle)) goto fall_back;
            from = PyBytes_AS_STRING(middle);
            length = PyBytes_GET_SIZE(middle);
        }
        Py_ssize_t comma = PyList_GET_SIZE(before) > 0;
        if (reserve(&b, length + comma) < 0) goto done;
        if (comma) b.data[b.size++] = ',';
        memcpy(b.data + b.size, from, (size_t)length);
        b.size += length;
        found = append_cells(&b, after, row, 1);
        if (found < 0) goto done;
        if (found > 0) goto fall_back;
        if (reserve(&b, 2) < 0) goto done;
        b.data[b.size++] = '\r';
        b.data[b.size++] = '\n';
    }
    lines = PyBytes_FromStringAndSize(b.data ? b.data : "", b.size);
    goto done;
fall_back:
    lines = Py_None;
    Py_INCREF(lines);
done:
    PyMem_Free(b.data);
    PyBuffer_Release(&source);
    PyBuffer_Release(&spans);
    return lines;
}


/* split_rows(data) -> (rows, verbatim) | None: the csv module's rows (excel dialect, strict) of UTF-8
 * bytes in which every line ("\n"-ended, the last may lack it) is one row, each cell unquoted (no quote
 * in it) or quoted whole (its quotes doubled); and per row 1 where csv.writer writes the row's cells
 * back as its very line (minimal_rows). Lines end all in "\n" or all in "\r\n". None for anything
 * else, which the caller reads the usual way: another carriage return, a NUL byte, a blank line, a
 * quote inside an unquoted cell, a quoted cell left open or followed by anything but a comma, bytes
 * that are not UTF-8.
 *
 * This is the reader's common case made one pass: no decoding of the whole text, no list of lines, no
 * cell built a character at a time; each cell is decoded from its own bytes. */
static PyObject *split_rows(PyObject *self, PyObject *args) {
    Py_buffer source;
    if (!PyArg_ParseTuple(args, "y*", &source)) return NULL;
    const char *data = (const char *)source.buf;
    Py_ssize_t size = source.len;
    PyObject *rows = NULL, *row = NULL, *result = NULL;
    Buffer flags = {NULL, 0, 0}, unquoted = {NULL, 0, 0};
    if (memchr(data, '\0', (size_t)size)) goto refuse;
    /* Line ends: every one "\n" and no carriage return, or every one "\r\n" and no other (as
     * csvfile._plain_lines); then each line holds no carriage return at all. */
    Py_ssize_t returns = 0, breaks = 0;
    for (Py_ssize_t k = 0; k < size; k++) {
        returns += data[k] == '\r';
        breaks += data[k] == '\n';
    }
    int crlf = returns > 0;
    if (crlf && returns != breaks) goto refuse;
    rows = PyList_New(0);
    if (rows == NULL) goto done;
    Py_ssize_t at = 0;
    while (at < size) {
        const char *newline = memchr(data + at, '\n', (size_t)(size - at));
        Py_ssize_t end = newline ? (Py_ssize_t)(newline - data) : size, next_line = end + 1;
        if (crlf && newline) {
            if (end == at || data[end - 1] != '\r') goto refuse;
            end--;
        }
        if (end == at) goto refuse; /* a blank line: no row to the csv module */
        row = PyList_New(0);
        if (row == NULL) goto done;
        int verbatim = 1;
        Py_ssize_t pos = at;
        for (;;) { /* one cell a turn; pos is at its first byte (== end: an empty last cell) */
            PyObject *cell;
            Py_ssize_t next;
            if (pos < end && data[pos] == '"') {
                Py_ssize_t from = pos + 1, close = -1;
                int doubled = 0;
                while (from <= end) {
                    const char *quote = memchr(data + from, '"', (size_t)(end - from));
                    if (quote == NULL) goto refuse; /* open at the line end: it spans lines */
                    Py_ssize_t q = (Py_ssize_t)(quote - data);
                    if (q + 1 < end && data[q + 1] == '"') {
                        doubled = 1;
                        from = q + 2;
                        continue;
                    }
                    close = q;
                    break;
                }
                if (close < 0) goto refuse;
                if (close + 1 < end && data[close + 1] != ',') goto refuse; /* strict: ',' expected */
                const char *text = data + pos + 1;
                Py_ssize_t length = close - pos - 1;
                if (doubled) { /* "" -> " */
                    unquoted.size = 0;
                    if (reserve(&unquoted, length) < 0) goto done;
                    for (Py_ssize_t k = 0; k < length; k++) {
                        unquoted.data[unquoted.size++] = text[k];
                        if (text[k] == '"') k++;
                    }
                    text = unquoted.data;
                    length = unquoted.size;
                }
                /* csv.writer quotes a cell only when it holds a comma or a quote (no line end here) */
                if (!doubled && !memchr(text, ',', (size_t)length)) verbatim = 0;
                cell = PyUnicode_DecodeUTF8(text, length, NULL);
                next = close + 1;
            } else {
                const char *comma = memchr(data + pos, ',', (size_t)(end - pos));
                next = comma ? (Py_ssize_t)(comma - data) : end;
                if (memchr(data + pos, '"', (size_t)(next - pos))) goto refuse;
                cell = PyUnicode_DecodeUTF8(data + pos, next - pos, NULL);
            }
            if (cell == NULL) {
                if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) goto done;
                PyErr_Clear();
                goto refuse;
            }
            int failed = PyList_Append(row, cell);
            Py_DECREF(cell);
            if (failed < 0) goto done;
            if (next == end) break;
            pos = next + 1; /* past the comma */
        }
        if (PyList_GET_SIZE(row) == 1 && PyUnicode_GET_LENGTH(PyList_GET_ITEM(row, 0)) == 0)
            verbatim = 0; /* csv.writer writes a lone empty cell "" (minimal_rows) */
        if (PyList_Append(rows, row) < 0) goto done;
        Py_CLEAR(row);
        if (reserve(&flags, 1) < 0) goto done;
        flags.data[flags.size++] = (char)verbatim;
        at = next_line;
    }
    PyObject *verbatim = PyBytes_FromStringAndSize(flags.data ? flags.data : "", flags.size);
    if (verbatim == NULL) goto done;
    result = PyTuple_Pack(2, rows, verbatim);
    Py_DECREF(verbatim);
    goto done;
refuse:
    result = Py_None;
    Py_INCREF(result);
done:
    Py_XDECREF(row);
    Py_XDECREF(rows);
    PyMem_Free(flags.data);
    PyMem_Free(unquoted.data);
    PyBuffer_Release(&source);
    return result;
}

static PyMethodDef methods[] = {
    {"split_rows", split_rows, METH_VARARGS,
     "split_rows(data) -> (rows, verbatim) | None\n\nThe rows of UTF-8 CSV lines that are each one plain row."},
    {"minimal_rows", minimal_rows, METH_VARARGS,
     "minimal_rows(lines, rows) -> bytes\n\n1 where csv.writer writes rows[i] as exactly lines[i], else 0."},
    {"line_spans", line_spans, METH_VARARGS,
     "line_spans(source, end, lines, verbatim, first_line, spans, state, first, stop) -> None\n\nThe byte span of each line asked for."},
    {"spliced_lines", spliced_lines, METH_VARARGS,
     "spliced_lines(before, source, spans, middles, after, start, stop) -> bytes | None\n\n"
     "CSV lines of text columns around each row's input cells as the file holds them."},
    {"csv_lines", csv_lines, METH_VARARGS,
     "csv_lines(columns, start, stop) -> bytes | None\n\n"
     "Rows start..stop of the columns (lists of str) as csv.writer's excel dialect writes them, in UTF-8;\n"
     "None when a cell is not a str or holds a lone surrogate."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "assay._csvwrite", NULL, 0, methods};

PyMODINIT_FUNC PyInit__csvwrite(void) { return PyModule_Create(&module); }
