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

static PyMethodDef methods[] = {
    {"csv_lines", csv_lines, METH_VARARGS,
     "csv_lines(columns, start, stop) -> bytes | None\n\n"
     "Rows start..stop of the columns (lists of str) as csv.writer's excel dialect writes them, in UTF-8;\n"
     "None when a cell is not a str or holds a lone surrogate."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "assay._csvwrite", NULL, 0, methods};

PyMODINIT_FUNC PyInit__csvwrite(void) { return PyModule_Create(&module); }
