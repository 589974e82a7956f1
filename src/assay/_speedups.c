/* The seed's word_overlap over a batch of rows with one golden answer each, in C.
 *
 * This is the hot loop of `assay score` at a million rows. It does exactly what the pure-Python path in
 * scorers/seed.py does (which remains the reference, and the fallback when this module is not built):
 * the answer's words (split on str.isspace, leading and trailing characters of Unicode category P
 * stripped, empty words dropped, duplicates counted once) are each looked for as a whole word of the
 * response: an occurrence with only punctuation between it and the nearest whitespace or end of text on
 * both sides. Both texts come lowercased.
 *
 * Which characters are punctuation is decided in Python (unicodedata) and passed in as a bitmap, so the
 * two paths cannot disagree on it. Tests hold both paths to the seed's one-line definitions.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

typedef struct {
    const unsigned char *bits;
    Py_ssize_t limit; /* code points below this are covered by the bitmap; none above is punctuation */
} Punctuation;

static int is_punct(const Punctuation *p, Py_UCS4 ch) {
    return (Py_ssize_t)ch < p->limit && ((p->bits[ch >> 3] >> (ch & 7)) & 1);
}

/* Is there an occurrence of `word` in `text` with only punctuation between it and whitespace (or the
   text's ends) on each side? -1 on error. */
static int occurs_as_word(PyObject *text, PyObject *word, const Punctuation *p) {
    Py_ssize_t length = PyUnicode_GET_LENGTH(text), wlen = PyUnicode_GET_LENGTH(word);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t start = 0;
    for (;;) {
        Py_ssize_t at = PyUnicode_Find(text, word, start, length, 1);
        if (at < 0) return at == -1 ? 0 : -1; /* -1: not found; -2: error */
        Py_ssize_t i = at;
        while (i > 0 && is_punct(p, PyUnicode_READ(kind, data, i - 1))) i--;
        int left = i == 0 || Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i - 1));
        if (left) {
            Py_ssize_t j = at + wlen;
            while (j < length && is_punct(p, PyUnicode_READ(kind, data, j))) j++;
            if (j == length || Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, j))) return 1;
        }
        start = at + 1;
    }
}

/* The distinct seed words of `answer`, as new references in `words` (at most `capacity`); their count,
   or -1 on error. */
static Py_ssize_t golden_words(PyObject *answer, const Punctuation *p, PyObject **words, Py_ssize_t capacity) {
    Py_ssize_t length = PyUnicode_GET_LENGTH(answer), count = 0, i = 0;
    int kind = PyUnicode_KIND(answer);
    const void *data = PyUnicode_DATA(answer);
    while (i < length) {
        while (i < length && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i))) i++;
        Py_ssize_t start = i;
        while (i < length && !Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i))) i++;
        Py_ssize_t end = i;
        while (start < end && is_punct(p, PyUnicode_READ(kind, data, start))) start++;
        while (end > start && is_punct(p, PyUnicode_READ(kind, data, end - 1))) end--;
        if (start == end) continue;
        PyObject *word = PyUnicode_Substring(answer, start, end);
        if (word == NULL) {
            while (count > 0) Py_DECREF(words[--count]);
            return -1;
        }
        int seen = 0;
        for (Py_ssize_t k = 0; k < count && !seen; k++) {
            seen = PyUnicode_Compare(words[k], word) == 0;
        }
        if (seen || count == capacity) { /* capacity: the caller sized it to the answer's length */
            Py_DECREF(word);
            continue;
        }
        words[count++] = word;
    }
    return count;
}

static PyObject *word_overlap(PyObject *module, PyObject *args) {
    PyObject *responses, *answers;
    Py_buffer bitmap;
    if (!PyArg_ParseTuple(args, "O!O!y*", &PyList_Type, &responses, &PyList_Type, &answers, &bitmap)) return NULL;
    Punctuation punct = {(const unsigned char *)bitmap.buf, bitmap.len * 8};
    Py_ssize_t rows = PyList_GET_SIZE(responses);
    PyObject *overlap = NULL, *matching = NULL, *totals = NULL, *result = NULL;
    PyObject **words = NULL;
    if (PyList_GET_SIZE(answers) != rows) {
        PyErr_SetString(PyExc_ValueError, "responses and answers differ in length");
        goto done;
    }
    overlap = PyBytes_FromStringAndSize(NULL, rows);
    matching = PyBytes_FromStringAndSize(NULL, rows * (Py_ssize_t)sizeof(int32_t));
    totals = PyBytes_FromStringAndSize(NULL, rows * (Py_ssize_t)sizeof(int32_t));
    if (!overlap || !matching || !totals) goto done;
    char *overlap_out = PyBytes_AS_STRING(overlap);
    int32_t *matching_out = (int32_t *)PyBytes_AS_STRING(matching), *totals_out = (int32_t *)PyBytes_AS_STRING(totals);
    Py_ssize_t capacity = 0;
    for (Py_ssize_t row = 0; row < rows; row++) {
        PyObject *response = PyList_GET_ITEM(responses, row), *answer = PyList_GET_ITEM(answers, row);
        if (!PyUnicode_Check(response) || !PyUnicode_Check(answer)) {
            PyErr_SetString(PyExc_TypeError, "responses and answers must be str");
            goto done;
        }
        Py_ssize_t needed = PyUnicode_GET_LENGTH(answer) / 2 + 1; /* at most one word per two characters */
        if (needed > capacity) {
            PyMem_Free(words);
            capacity = needed;
            words = PyMem_Malloc(capacity * sizeof(PyObject *));
            if (words == NULL) {
                PyErr_NoMemory();
                goto done;
            }
        }
        Py_ssize_t count = golden_words(answer, &punct, words, capacity), found = 0;
        if (count < 0) goto done;
        int failed = 0;
        for (Py_ssize_t k = 0; k < count; k++) {
            int hit = failed ? 0 : occurs_as_word(response, words[k], &punct);
            failed |= hit < 0;
            found += hit > 0;
            Py_DECREF(words[k]);
        }
        if (failed) goto done;
        matching_out[row] = (int32_t)found;
        totals_out[row] = (int32_t)count;
        overlap_out[row] = found == count; /* an empty golden word set passes, as in the seed */
    }
    result = PyTuple_Pack(3, overlap, matching, totals);
done:
    PyMem_Free(words);
    PyBuffer_Release(&bitmap);
    Py_XDECREF(overlap);
    Py_XDECREF(matching);
    Py_XDECREF(totals);
    return result;
}


/* The unicode profile's fast path (text/unicode.py, where the reasoning and the reference live).
 *
 * Python builds two tables over the Basic Multilingual Plane: `mapping`, what the whole profile makes of
 * each character alone (a native uint32: one code point, or two with the second in the high half;
 * UNSAFE: this text must take the profile's steps; SEPARATOR: punctuation or whitespace), and `flags`,
 * one byte per character. A text passes through in one pass, separators collapsed to one space between
 * words, then stripped as str.strip() does. When a neighbour could change a character (two combining
 * marks in a row, a mark after a precomposed letter, the halves of a pair that NFC composes or a step
 * rewrites), or a character lies outside the table, the answer is None and Python takes the steps. The flag values are those of text/unicode.py. */
enum {
    MARK = 1, HAS_MARK = 2, COMPOSES_FIRST = 4, COMPOSES_SECOND = 8, WORD = 16, UNSPACED = 32,
    REWRITTEN_FIRST = 64, REWRITTEN_SECOND = 128
};
#define TABLE_SIZE 0x10000
#define UNSAFE 0xFFFF
#define SEPARATOR 0x20
#define NUMBER_POINT 0xFFFE     /* a separator, except a full stop between two digits (3.5) */
#define NUMBER_SEPARATOR 0xFFFFFFFEu /* a separator, except between two digits: then the steps decide */

static int is_digit(Py_UCS4 ch) { return ch >= '0' && ch <= '9'; }

static int check_tables(const Py_buffer *mapping, const Py_buffer *flags) {
    if ((mapping == NULL || mapping->len == TABLE_SIZE * 4) && flags->len == TABLE_SIZE) return 0;
    PyErr_SetString(PyExc_ValueError, "the unicode tables must cover the Basic Multilingual Plane");
    return -1;
}

/* The folded text in `out` (length in *folded_length), or 0 when it must take Python's steps. */
static int fold_into(PyObject *text, const uint32_t *mapping, const unsigned char *flags, Py_UCS4 *out,
                     Py_ssize_t *folded_length) {
    Py_ssize_t length = PyUnicode_GET_LENGTH(text), n = 0;
    int kind = PyUnicode_KIND(text), space_pending = 0;
    const void *data = PyUnicode_DATA(text);
    unsigned char previous = 0;
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch >= TABLE_SIZE || mapping[ch] == UNSAFE) return 0;
        unsigned char flag = flags[ch];
        if ((flag & MARK) && (previous & (MARK | HAS_MARK))) return 0; /* NFC could reorder them */
        if ((flag & COMPOSES_SECOND) && (previous & COMPOSES_FIRST)) return 0; /* NFC could join them */
        if ((flag & REWRITTEN_SECOND) && (previous & REWRITTEN_FIRST)) return 0; /* so could a step */
        previous = flag;
        int in_number = 0;
        if ((mapping[ch] == NUMBER_POINT || mapping[ch] == NUMBER_SEPARATOR) && n > 0 && !space_pending &&
            is_digit(out[n - 1]) && i + 1 < length) {
            Py_UCS4 next = PyUnicode_READ(kind, data, i + 1);
            in_number = next < TABLE_SIZE && mapping[next] != UNSAFE && is_digit(mapping[next] & 0xFFFF);
        }
        if (in_number && mapping[ch] == NUMBER_SEPARATOR) return 0; /* 1,24,000: grouping is the steps' */
        if (in_number) { /* 3.5: the point stays in the number */
            out[n++] = '.';
            continue;
        }
        if (mapping[ch] == SEPARATOR || mapping[ch] == NUMBER_POINT || mapping[ch] == NUMBER_SEPARATOR) {
            space_pending = n > 0;
            continue;
        }
        if (space_pending) out[n++] = ' ';
        space_pending = 0;
        out[n++] = mapping[ch] & 0xFFFF;
        if (mapping[ch] >> 16) out[n++] = mapping[ch] >> 16; /* a character that becomes two */
    }
    *folded_length = n;
    return 1;
}

static PyObject *unicode_fold(PyObject *module, PyObject *args) {
    PyObject *text, *result = NULL;
    Py_buffer mapping, flags;
    if (!PyArg_ParseTuple(args, "Uy*y*", &text, &mapping, &flags)) return NULL;
    Py_UCS4 *out = NULL;
    if (check_tables(&mapping, &flags) < 0) goto done;
    out = PyMem_Malloc((2 * PyUnicode_GET_LENGTH(text) + 1) * sizeof(Py_UCS4));
    if (out == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t n = 0, start = 0;
    if (!fold_into(text, (const uint32_t *)mapping.buf, (const unsigned char *)flags.buf, out, &n)) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    /* The steps end with str.strip(), which also takes the separators \x1c-\x1f (not \s to regex). */
    while (start < n && Py_UNICODE_ISSPACE(out[start])) start++;
    while (n > start && Py_UNICODE_ISSPACE(out[n - 1])) n--;
    result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out + start, n - start);
done:
    PyMem_Free(out);
    PyBuffer_Release(&mapping);
    PyBuffer_Release(&flags);
    return result;
}

/* A text read token by token: runs of word characters (regex's \w+), and with `token_end` = UNSPACED, each
   character of an unspaced script a token of its own. */
typedef struct {
    int kind;
    const void *data;
    Py_ssize_t length, at;
    const unsigned char *flags;
    unsigned char token_end;
} Tokens;

static Tokens tokens_of(PyObject *text, const Py_buffer *flags, int split_unspaced) {
    Tokens t = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text), 0,
                (const unsigned char *)flags->buf, split_unspaced ? UNSPACED : 0};
    return t;
}

/* The flags of the character at i; -1 for one outside the table. */
static int flags_at(const Tokens *t, Py_ssize_t i) {
    Py_UCS4 ch = PyUnicode_READ(t->kind, t->data, i);
    return ch < TABLE_SIZE ? t->flags[ch] : -1;
}

/* Is the character at i a full stop or comma between two ASCII digits (part of a number)? */
static int in_number(const Tokens *t, Py_ssize_t i) {
    Py_UCS4 ch = PyUnicode_READ(t->kind, t->data, i);
    return (ch == '.' || ch == ',') && i > 0 && i + 1 < t->length &&
           is_digit(PyUnicode_READ(t->kind, t->data, i - 1)) && is_digit(PyUnicode_READ(t->kind, t->data, i + 1));
}

/* The next token as [*start, *end): 1, or 0 at the end of the text, or -1 at a character outside the
   table (the caller gives None, and Python tokenises). */
static int next_token(Tokens *t, Py_ssize_t *start, Py_ssize_t *end) {
    int f;
    for (;; t->at++) { /* to the next word character */
        if (t->at == t->length) return 0;
        if ((f = flags_at(t, t->at)) < 0) return -1;
        if (f & WORD) break;
    }
    *start = t->at++;
    if (!(f & t->token_end)) { /* an unspaced character is a token alone; else, to the run's end */
        for (; t->at < t->length; t->at++) {
            if ((f = flags_at(t, t->at)) < 0) return -1;
            if (in_number(t, t->at)) continue; /* 3.5, 1,24,000: a number is one token */
            if (!(f & WORD) || (f & t->token_end)) break;
        }
    }
    *end = t->at;
    return 1;
}

/* The runs of word characters (regex's \w+); with split_unspaced, each character of an unspaced script
   a token of its own. None when a character lies outside the table. */
static PyObject *unicode_tokens(PyObject *module, PyObject *args) {
    PyObject *text, *tokens = NULL;
    Py_buffer flags;
    int split_unspaced, found;
    if (!PyArg_ParseTuple(args, "Uy*p", &text, &flags, &split_unspaced)) return NULL;
    if (check_tables(NULL, &flags) < 0 || (tokens = PyList_New(0)) == NULL) goto done;
    Tokens reader = tokens_of(text, &flags, split_unspaced);
    Py_ssize_t start, end;
    while ((found = next_token(&reader, &start, &end)) == 1) {
        PyObject *token = PyUnicode_Substring(text, start, end);
        if (token == NULL || PyList_Append(tokens, token) < 0) {
            Py_XDECREF(token);
            Py_CLEAR(tokens);
            goto done;
        }
        Py_DECREF(token);
    }
    if (found < 0) Py_SETREF(tokens, Py_NewRef(Py_None));
done:
    PyBuffer_Release(&flags);
    return tokens;
}

/* " w1 w2 ... wn ": the words of the text joined by spaces, and a space at each end (two spaces for no
   words); None when a character lies outside the table. One string, where unicode_tokens would make one
   per word. */
static PyObject *unicode_spaced_words(PyObject *module, PyObject *args) {
    PyObject *text, *result = NULL;
    Py_buffer flags;
    if (!PyArg_ParseTuple(args, "Uy*", &text, &flags)) return NULL;
    Py_UCS4 *out = NULL;
    if (check_tables(NULL, &flags) < 0) goto done;
    out = PyMem_Malloc((2 * PyUnicode_GET_LENGTH(text) + 2) * sizeof(Py_UCS4));
    if (out == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Tokens reader = tokens_of(text, &flags, 0);
    Py_ssize_t start, end, n = 0;
    int found;
    out[n++] = ' ';
    while ((found = next_token(&reader, &start, &end)) == 1) {
        for (Py_ssize_t i = start; i < end; i++) out[n++] = PyUnicode_READ(reader.kind, reader.data, i);
        out[n++] = ' ';
    }
    if (n == 1) out[n++] = ' ';
    result = found < 0 ? Py_NewRef(Py_None) : PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, n);
done:
    PyMem_Free(out);
    PyBuffer_Release(&flags);
    return result;
}

/* Is text[start:end) the string `token`? */
static int span_equals(const Tokens *t, Py_ssize_t start, Py_ssize_t end, PyObject *token) {
    if (PyUnicode_GET_LENGTH(token) != end - start) return 0;
    int kind = PyUnicode_KIND(token);
    const void *data = PyUnicode_DATA(token);
    for (Py_ssize_t i = start; i < end; i++) {
        if (PyUnicode_READ(t->kind, t->data, i) != PyUnicode_READ(kind, data, i - start)) return 0;
    }
    return 1;
}

/* SQuAD's multiset overlap between golden tokens and the F1 tokens of a text, without making the text's
   tokens: (the sum over distinct golden tokens of the lesser of its two counts, the text's token count),
   or None when a character lies outside the table. */
static PyObject *unicode_token_overlap(PyObject *module, PyObject *args) {
    PyObject *golden, *text, *result = NULL;
    Py_buffer flags;
    if (!PyArg_ParseTuple(args, "O!Uy*", &PyList_Type, &golden, &text, &flags)) return NULL;
    Py_ssize_t size = PyList_GET_SIZE(golden), *in_text = NULL, *first_equal = NULL;
    if (check_tables(NULL, &flags) < 0) goto done;
    in_text = PyMem_Calloc(size + 1, sizeof(Py_ssize_t));
    first_equal = PyMem_Calloc(size + 1, sizeof(Py_ssize_t));
    if (in_text == NULL || first_equal == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t g = 0; g < size; g++) { /* each golden token names the first one equal to it */
        PyObject *token = PyList_GET_ITEM(golden, g);
        if (!PyUnicode_Check(token)) {
            PyErr_SetString(PyExc_TypeError, "golden tokens must be str");
            goto done;
        }
        first_equal[g] = g;
        for (Py_ssize_t h = 0; h < g; h++) {
            if (PyUnicode_Compare(PyList_GET_ITEM(golden, h), token) == 0) {
                first_equal[g] = h;
                break;
            }
        }
    }
    Tokens reader = tokens_of(text, &flags, 1);
    Py_ssize_t start, end, tokens = 0, common = 0;
    int found;
    while ((found = next_token(&reader, &start, &end)) == 1) {
        tokens++;
        for (Py_ssize_t g = 0; g < size; g++) {
            if (first_equal[g] == g && span_equals(&reader, start, end, PyList_GET_ITEM(golden, g))) {
                in_text[g]++;
                break;
            }
        }
    }
    if (found < 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    for (Py_ssize_t g = 0; g < size; g++) { /* each golden occurrence past the first claims one more */
        Py_ssize_t claimed = 0;
        for (Py_ssize_t h = 0; h <= g; h++) claimed += first_equal[h] == first_equal[g];
        common += claimed <= in_text[first_equal[g]];
    }
    result = Py_BuildValue("nn", common, tokens);
done:
    PyMem_Free(in_text);
    PyMem_Free(first_equal);
    PyBuffer_Release(&flags);
    return result;
}


/* The first of several needles that occurs in a text: Aho and Corasick's automaton (Communications of
 * the ACM 18(6), 1975), so that thousands of golden answers cost one pass over a long response instead
 * of one pass each. The trie's edges live in one open-addressing hash table keyed by (node, character);
 * each node's children are also chained, for the breadth-first pass that sets the failure links. The
 * text is read once, marking each state it reaches; a state reached means every needle ending at it,
 * and at the states down its failure links, occurs. */
typedef struct {
    Py_ssize_t nodes, capacity, mask;
    Py_ssize_t *first_child, *next_sibling, *fail, *lowest; /* lowest: the first needle ending here */
    Py_UCS4 *label;
    uint64_t *keys; /* (node + 1) << 21 | character; 0: empty slot */
    Py_ssize_t *values;
} Trie;

static Py_ssize_t slot_of(const Trie *t, uint64_t key) {
    Py_ssize_t at = (Py_ssize_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & t->mask;
    while (t->keys[at] != 0 && t->keys[at] != key) at = (at + 1) & t->mask;
    return at;
}

static Py_ssize_t child_of(const Trie *t, Py_ssize_t node, Py_UCS4 ch) {
    Py_ssize_t at = slot_of(t, ((uint64_t)(node + 1) << 21) | ch);
    return t->keys[at] ? t->values[at] : -1;
}

static void trie_free(Trie *t) {
    PyMem_Free(t->first_child);
    PyMem_Free(t->next_sibling);
    PyMem_Free(t->fail);
    PyMem_Free(t->lowest);
    PyMem_Free(t->label);
    PyMem_Free(t->keys);
    PyMem_Free(t->values);
}

/* Room for `capacity` nodes (every needle's characters, and the root). -1 when memory ran out. */
static int trie_init(Trie *t, Py_ssize_t capacity) {
    Py_ssize_t slots = 1;
    while (slots < 2 * capacity) slots <<= 1;
    *t = (Trie){1, capacity, slots - 1};
    t->first_child = PyMem_Malloc(capacity * sizeof(Py_ssize_t));
    t->next_sibling = PyMem_Malloc(capacity * sizeof(Py_ssize_t));
    t->fail = PyMem_Calloc(capacity, sizeof(Py_ssize_t));
    t->lowest = PyMem_Malloc(capacity * sizeof(Py_ssize_t));
    t->label = PyMem_Malloc(capacity * sizeof(Py_UCS4));
    t->keys = PyMem_Calloc(slots, sizeof(uint64_t));
    t->values = PyMem_Malloc(slots * sizeof(Py_ssize_t));
    if (!t->first_child || !t->next_sibling || !t->fail || !t->lowest || !t->label || !t->keys || !t->values) {
        PyErr_NoMemory();
        return -1;
    }
    t->first_child[0] = -1;
    t->lowest[0] = PY_SSIZE_T_MAX;
    return 0;
}

static void trie_insert(Trie *t, PyObject *needle, Py_ssize_t index) {
    Py_ssize_t node = 0, length = PyUnicode_GET_LENGTH(needle);
    int kind = PyUnicode_KIND(needle);
    const void *data = PyUnicode_DATA(needle);
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        uint64_t key = ((uint64_t)(node + 1) << 21) | ch;
        Py_ssize_t at = slot_of(t, key);
        if (t->keys[at] == 0) { /* a new node */
            Py_ssize_t made = t->nodes++;
            t->keys[at] = key;
            t->values[at] = made;
            t->label[made] = ch;
            t->first_child[made] = -1;
            t->lowest[made] = PY_SSIZE_T_MAX;
            t->next_sibling[made] = t->first_child[node];
            t->first_child[node] = made;
        }
        node = t->values[at];
    }
    if (index < t->lowest[node]) t->lowest[node] = index;
}

/* The failure links, in breadth-first order; `order` receives that order. */
static void trie_link(Trie *t, Py_ssize_t *order) {
    Py_ssize_t head = 0, tail = 0;
    for (Py_ssize_t c = t->first_child[0]; c >= 0; c = t->next_sibling[c]) {
        t->fail[c] = 0;
        order[tail++] = c;
    }
    while (head < tail) {
        Py_ssize_t node = order[head++];
        for (Py_ssize_t c = t->first_child[node]; c >= 0; c = t->next_sibling[c]) {
            Py_ssize_t f = t->fail[node], next;
            while ((next = child_of(t, f, t->label[c])) < 0 && f != 0) f = t->fail[f];
            t->fail[c] = next >= 0 ? next : 0;
            order[tail++] = c;
        }
    }
}

static PyObject *first_found(PyObject *module, PyObject *args) {
    PyObject *needles, *text;
    if (!PyArg_ParseTuple(args, "O!U", &PyList_Type, &needles, &text)) return NULL;
    Py_ssize_t count = PyList_GET_SIZE(needles), capacity = 1, found = PY_SSIZE_T_MAX;
    for (Py_ssize_t n = 0; n < count; n++) {
        PyObject *needle = PyList_GET_ITEM(needles, n);
        if (!PyUnicode_Check(needle)) {
            PyErr_SetString(PyExc_TypeError, "needles must be str");
            return NULL;
        }
        capacity += PyUnicode_GET_LENGTH(needle);
    }
    Trie t;
    Py_ssize_t *order = NULL;
    char *reached = NULL;
    PyObject *result = NULL;
    if (trie_init(&t, capacity) < 0) goto done;
    for (Py_ssize_t n = 0; n < count; n++) trie_insert(&t, PyList_GET_ITEM(needles, n), n);
    order = PyMem_Malloc(t.nodes * sizeof(Py_ssize_t));
    reached = PyMem_Calloc(t.nodes, 1);
    if (order == NULL || reached == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    trie_link(&t, order);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text), state = 0;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    reached[0] = 1; /* the empty needle occurs in every text */
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        Py_ssize_t next;
        while ((next = child_of(&t, state, ch)) < 0 && state != 0) state = t.fail[state];
        state = next >= 0 ? next : 0;
        reached[state] = 1;
    }
    for (Py_ssize_t k = t.nodes - 2; k >= 0; k--) { /* deepest first: a reached state reaches its links */
        if (reached[order[k]]) reached[t.fail[order[k]]] = 1;
    }
    for (Py_ssize_t node = 0; node < t.nodes; node++) {
        if (reached[node] && t.lowest[node] < found) found = t.lowest[node];
    }
    result = PyLong_FromSsize_t(found == PY_SSIZE_T_MAX ? -1 : found);
done:
    trie_free(&t);
    PyMem_Free(order);
    PyMem_Free(reached);
    return result;
}

static PyObject *squad_rows(PyObject *module, PyObject *args); /* SQuAD and MLQA: at the end */

static PyMethodDef methods[] = {
    {"word_overlap", word_overlap, METH_VARARGS,
     "word_overlap(responses, answers, punctuation_bitmap) -> (passed, matching, totals)\n\n"
     "The seed's word_overlap over lowercased rows with one golden answer each. passed holds a byte\n"
     "per row (1: pass); matching and totals hold a native int32 per row."},
    {"first_found", first_found, METH_VARARGS,
     "first_found(needles, text) -> int\n\n"
     "The index of the first needle that occurs in text (as `needle in text`), or -1; one pass over text."},
    {"unicode_fold", unicode_fold, METH_VARARGS,
     "unicode_fold(text, mapping, flags) -> str | None\n\n"
     "The unicode profile's normalise() by table, or None when the text must take the profile's steps."},
    {"unicode_spaced_words", unicode_spaced_words, METH_VARARGS,
     "unicode_spaced_words(text, flags) -> str | None\n\n"
     "The text's \\w+ runs joined by spaces, a space at each end, or None (a character outside the table)."},
    {"unicode_token_overlap", unicode_token_overlap, METH_VARARGS,
     "unicode_token_overlap(golden_tokens, text, flags) -> (common, text_tokens) | None\n\n"
     "SQuAD's multiset overlap of golden tokens with the text's F1 tokens, and the text's token count."},
    {"unicode_tokens", unicode_tokens, METH_VARARGS,
     "unicode_tokens(text, flags, split_unspaced) -> list[str] | None\n\n"
     "regex's \\w+ runs of normalised text (each unspaced-script character alone if split_unspaced),\n"
     "or None when a character lies outside the table."},
    {"squad_rows", squad_rows, METH_VARARGS,
     "squad_rows(responses, answer_sets, rules, row_rules, graded, max_chars)\n"
     "    -> (outcomes, answer_index, values | None, skipped)\n\n"
     "SQuAD v1.1's or MLQA's EM (graded false) or F1 of each row, best over its golden answers. rules: a\n"
     "tuple of (dropped-character bitmap, articles, infix, segmented); row_rules: a byte per row naming\n"
     "its rule (None: rule 0; 255: none, left as failing). outcomes: a byte per row (1: pass);\n"
     "answer_index: native int32; values: native doubles; skipped: rows with a text over max_chars."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "assay._speedups", NULL, 0, methods};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&module); }


/* ==== SQuAD v1.1 and MLQA scores (scorers/squad.py; text/squad.py holds the rules and the reference) ====
 *
 * The official scripts normalise a text as: lowercase (str.lower, called here for a non-ASCII text, so
 * that its special cases hold); drop the characters of a set (a bitmap from Python: string.punctuation
 * for SQuAD, Unicode category P and string.punctuation for MLQA); replace each article with a space
 * (re.sub of \b(a|an|the)\b: a maximal run of \w characters, \w as re sees it, that equals an article;
 * for Arabic every "ال", the `infix`); split on whitespace (str.split's), each CJK ideograph
 * U+4E00..U+9FA5 a token of its own when `segmented` (MLQA's Chinese). EM: the token sequences are equal;
 * F1: SQuAD's over the multiset overlap, computed with the same double operations as the script. Both are
 * the best over a row's golden answers (the first of equal ones). A row whose text is longer than
 * `max_chars` is left to Python (listed in `skipped`), which normalises long texts a chunk at a time. */

typedef struct {
    const unsigned char *deleted;
    Py_ssize_t deleted_limit; /* code points below this are covered by the bitmap; none above is dropped */
    Py_UCS4 **articles;       /* each article's code points, and its length */
    Py_ssize_t *article_lengths;
    Py_ssize_t article_count;
    Py_UCS4 *infix;
    Py_ssize_t infix_length;
    int segmented;
    Py_buffer bitmap;
} SquadRule;

typedef struct {
    Py_UCS4 *chars; /* the text lowercased, without dropped characters, articles turned to spaces */
    Py_ssize_t length, capacity;
    Py_ssize_t *starts, *lengths;
    uint64_t *hashes;
    Py_ssize_t count, token_capacity;
} SquadText;

static PyObject *squad_lower_name = NULL;

static int squad_is_word(Py_UCS4 ch) { return Py_UNICODE_ISALNUM(ch) || ch == '_'; } /* re's \w */
static int squad_is_cjk(Py_UCS4 ch) { return ch >= 0x4E00 && ch <= 0x9FA5; }

static int squad_dropped(const SquadRule *rule, Py_UCS4 ch) {
    return (Py_ssize_t)ch < rule->deleted_limit && ((rule->deleted[ch >> 3] >> (ch & 7)) & 1);
}

static int squad_reserve(SquadText *t, Py_ssize_t length) {
    if (length <= t->capacity) return 0;
    Py_UCS4 *chars = PyMem_Realloc(t->chars, length * sizeof(Py_UCS4));
    if (chars == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    t->chars = chars;
    t->capacity = length;
    return 0;
}

static int squad_add_token(SquadText *t, Py_ssize_t start, Py_ssize_t end) {
    if (t->count == t->token_capacity) {
        Py_ssize_t capacity = t->token_capacity ? 2 * t->token_capacity : 64;
        Py_ssize_t *starts = PyMem_Realloc(t->starts, capacity * sizeof(Py_ssize_t));
        if (starts == NULL) goto no_memory;
        t->starts = starts;
        Py_ssize_t *lengths = PyMem_Realloc(t->lengths, capacity * sizeof(Py_ssize_t));
        if (lengths == NULL) goto no_memory;
        t->lengths = lengths;
        uint64_t *hashes = PyMem_Realloc(t->hashes, capacity * sizeof(uint64_t));
        if (hashes == NULL) goto no_memory;
        t->hashes = hashes;
        t->token_capacity = capacity;
    }
    uint64_t hash = 1469598103934665603ULL; /* FNV-1a over the code points */
    for (Py_ssize_t i = start; i < end; i++) hash = (hash ^ t->chars[i]) * 1099511628211ULL;
    t->starts[t->count] = start;
    t->lengths[t->count] = end - start;
    t->hashes[t->count] = hash;
    t->count++;
    return 0;
no_memory:
    PyErr_NoMemory();
    return -1;
}

/* The text lowercased without the dropped characters, into t->chars. */
static int squad_lowered(PyObject *text, const SquadRule *rule, SquadText *t) {
    Py_ssize_t length = PyUnicode_GET_LENGTH(text), kept = 0;
    if (squad_reserve(t, length) < 0) return -1;
    if (PyUnicode_IS_ASCII(text)) { /* str.lower of ASCII is A-Z to a-z, nothing more */
        const Py_UCS1 *data = PyUnicode_1BYTE_DATA(text);
        for (Py_ssize_t i = 0; i < length; i++) {
            Py_UCS4 ch = data[i] >= 'A' && data[i] <= 'Z' ? data[i] + 32 : data[i];
            if (!squad_dropped(rule, ch)) t->chars[kept++] = ch;
        }
        t->length = kept;
        return 0;
    }
    /* str.lower itself, not the text's own: a subclass's lower() could return anything */
    PyObject *lowered = PyObject_CallMethodOneArg((PyObject *)&PyUnicode_Type, squad_lower_name, text);
    if (lowered == NULL) return -1;
    length = PyUnicode_GET_LENGTH(lowered); /* lowercasing can lengthen a text (İ is i and a dot) */
    if (squad_reserve(t, length) < 0) {
        Py_DECREF(lowered);
        return -1;
    }
    int kind = PyUnicode_KIND(lowered);
    const void *data = PyUnicode_DATA(lowered);
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (!squad_dropped(rule, ch)) t->chars[kept++] = ch;
    }
    Py_DECREF(lowered);
    t->length = kept;
    return 0;
}

/* re.sub(infix, " ", text) for a literal infix: left to right, never overlapping. */
static void squad_replace_infix(const SquadRule *rule, SquadText *t) {
    Py_ssize_t n = rule->infix_length, out = 0, i = 0;
    while (i < t->length) {
        if (i + n <= t->length && memcmp(t->chars + i, rule->infix, n * sizeof(Py_UCS4)) == 0) {
            t->chars[out++] = ' ';
            i += n;
        } else {
            t->chars[out++] = t->chars[i++];
        }
    }
    t->length = out;
}

/* re.sub(r"\b(article|...)\b", " ", text): each maximal run of \w characters equal to an article. */
static void squad_blank_articles(const SquadRule *rule, SquadText *t) {
    Py_ssize_t i = 0;
    while (i < t->length) {
        if (!squad_is_word(t->chars[i])) {
            i++;
            continue;
        }
        Py_ssize_t start = i;
        while (i < t->length && squad_is_word(t->chars[i])) i++;
        for (Py_ssize_t a = 0; a < rule->article_count; a++) {
            if (rule->article_lengths[a] == i - start &&
                memcmp(t->chars + start, rule->articles[a], (i - start) * sizeof(Py_UCS4)) == 0) {
                for (Py_ssize_t k = start; k < i; k++) t->chars[k] = ' ';
                break;
            }
        }
    }
}

static int squad_normalise(PyObject *text, const SquadRule *rule, SquadText *t) {
    t->count = 0;
    if (squad_lowered(text, rule, t) < 0) return -1;
    if (rule->infix_length > 0) squad_replace_infix(rule, t);
    if (rule->article_count > 0) squad_blank_articles(rule, t);
    Py_ssize_t i = 0;
    while (i < t->length) { /* str.split(), or the script's mixed segmentation */
        Py_UCS4 ch = t->chars[i];
        if (Py_UNICODE_ISSPACE(ch)) {
            i++;
            continue;
        }
        Py_ssize_t start = i;
        if (rule->segmented && squad_is_cjk(ch)) {
            i++;
        } else {
            while (i < t->length && !Py_UNICODE_ISSPACE(t->chars[i]) && !(rule->segmented && squad_is_cjk(t->chars[i]))) i++;
        }
        if (squad_add_token(t, start, i) < 0) return -1;
    }
    return 0;
}

static int squad_same_token(const SquadText *a, Py_ssize_t i, const SquadText *b, Py_ssize_t j) {
    return a->hashes[i] == b->hashes[j] && a->lengths[i] == b->lengths[j] &&
           memcmp(a->chars + a->starts[i], b->chars + b->starts[j], a->lengths[i] * sizeof(Py_UCS4)) == 0;
}

/* The response's distinct tokens in an open-addressing table: each slot a token index (-1: empty), how
   often the token occurs, and how many of those a golden answer has used up. */
typedef struct {
    Py_ssize_t *token, *count, *used;
    Py_ssize_t size, capacity;
} SquadCounts;

static Py_ssize_t squad_slot(const SquadCounts *c, const SquadText *owner, const SquadText *t, Py_ssize_t i) {
    Py_ssize_t slot = (Py_ssize_t)(t->hashes[i] & (uint64_t)(c->size - 1));
    while (c->token[slot] >= 0 && !squad_same_token(owner, c->token[slot], t, i)) slot = (slot + 1) & (c->size - 1);
    return slot;
}

static int squad_count(SquadCounts *c, const SquadText *response) {
    Py_ssize_t size = 16;
    while (size < 2 * response->count) size *= 2;
    if (size > c->capacity) {
        PyMem_Free(c->token);
        PyMem_Free(c->count);
        PyMem_Free(c->used);
        c->token = PyMem_Malloc(size * sizeof(Py_ssize_t));
        c->count = PyMem_Malloc(size * sizeof(Py_ssize_t));
        c->used = PyMem_Malloc(size * sizeof(Py_ssize_t));
        c->capacity = size;
        if (!c->token || !c->count || !c->used) {
            c->capacity = 0;
            return -1;
        }
    }
    c->size = size;
    for (Py_ssize_t s = 0; s < size; s++) c->token[s] = -1;
    for (Py_ssize_t i = 0; i < response->count; i++) {
        Py_ssize_t slot = squad_slot(c, response, response, i);
        if (c->token[slot] < 0) {
            c->token[slot] = i;
            c->count[slot] = c->used[slot] = 0;
        }
        c->count[slot]++;
    }
    return 0;
}

/* sum((Counter(golden) & Counter(response)).values()): the response's counts used up token by token. */
static Py_ssize_t squad_common(SquadCounts *c, const SquadText *response, const SquadText *golden) {
    Py_ssize_t common = 0;
    for (Py_ssize_t i = 0; i < golden->count; i++) {
        Py_ssize_t slot = squad_slot(c, response, golden, i);
        if (c->token[slot] >= 0 && c->used[slot] < c->count[slot]) {
            c->used[slot]++;
            common++;
        }
    }
    for (Py_ssize_t i = 0; i < golden->count; i++) {
        Py_ssize_t slot = squad_slot(c, response, golden, i);
        if (c->token[slot] >= 0) c->used[slot] = 0;
    }
    return common;
}

static double squad_f1(Py_ssize_t common, Py_ssize_t response_tokens, Py_ssize_t golden_tokens) {
    if (common == 0) return 0.0;
    double precision = (double)common / (double)response_tokens; /* the script's 1.0 * num_same / len */
    double recall = (double)common / (double)golden_tokens;
    return (2 * precision * recall) / (precision + recall);
}

static int squad_same_tokens(const SquadText *a, const SquadText *b) {
    if (a->count != b->count) return 0;
    for (Py_ssize_t i = 0; i < a->count; i++) {
        if (!squad_same_token(a, i, b, i)) return 0;
    }
    return 1;
}

static void squad_rule_free(SquadRule *rule) {
    if (rule->bitmap.obj != NULL) PyBuffer_Release(&rule->bitmap);
    for (Py_ssize_t a = 0; a < rule->article_count; a++) PyMem_Free(rule->articles[a]);
    PyMem_Free(rule->articles);
    PyMem_Free(rule->article_lengths);
    PyMem_Free(rule->infix);
}

/* One rule from Python's (dropped-character bitmap, articles, infix, segmented). */
static int squad_rule_of(PyObject *spec, SquadRule *rule) {
    PyObject *articles, *infix;
    int segmented;
    memset(rule, 0, sizeof(*rule));
    if (!PyArg_ParseTuple(spec, "y*O!Up", &rule->bitmap, &PyTuple_Type, &articles, &infix, &segmented)) return -1;
    rule->deleted = (const unsigned char *)rule->bitmap.buf;
    rule->deleted_limit = rule->bitmap.len * 8;
    rule->segmented = segmented;
    rule->infix = PyUnicode_AsUCS4Copy(infix);
    if (rule->infix == NULL) return -1;
    rule->infix_length = PyUnicode_GET_LENGTH(infix);
    Py_ssize_t count = PyTuple_GET_SIZE(articles);
    rule->articles = PyMem_Calloc(count + 1, sizeof(Py_UCS4 *));
    rule->article_lengths = PyMem_Calloc(count + 1, sizeof(Py_ssize_t));
    if (rule->articles == NULL || rule->article_lengths == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t a = 0; a < count; a++) {
        PyObject *article = PyTuple_GET_ITEM(articles, a);
        if (!PyUnicode_Check(article) || PyUnicode_GET_LENGTH(article) == 0) {
            PyErr_SetString(PyExc_TypeError, "articles must be non-empty str");
            return -1;
        }
        rule->articles[a] = PyUnicode_AsUCS4Copy(article);
        if (rule->articles[a] == NULL) return -1;
        rule->article_lengths[a] = PyUnicode_GET_LENGTH(article);
        rule->article_count = a + 1;
    }
    return 0;
}

/* Is any of the row's texts longer than max_chars (or not a str: then an error is set, -1)? */
static int squad_too_long(PyObject *response, PyObject *answers, Py_ssize_t max_chars) {
    if (!PyUnicode_Check(response) || !(PyTuple_Check(answers) || PyList_Check(answers))) {
        PyErr_SetString(PyExc_TypeError, "each response must be a str and each row's answers a tuple (or list) of str");
        return -1;
    }
    int long_text = PyUnicode_GET_LENGTH(response) > max_chars;
    for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(answers); j++) {
        PyObject *answer = PySequence_Fast_GET_ITEM(answers, j);
        if (!PyUnicode_Check(answer)) {
            PyErr_SetString(PyExc_TypeError, "golden answers must be str");
            return -1;
        }
        long_text |= PyUnicode_GET_LENGTH(answer) > max_chars;
    }
    return long_text;
}

/* Is answers[j] equal to one of the row's first SQUAD_REPEATS answers before it (whose result it then
   shares)? Repeats sit among a question's few answers (SQuAD's dev set); the bound keeps a row of
   thousands of answers linear. */
#define SQUAD_REPEATS 16
static int squad_repeated(PyObject *answers, Py_ssize_t j) {
    PyObject *answer = PySequence_Fast_GET_ITEM(answers, j);
    for (Py_ssize_t k = 0; k < j && k < SQUAD_REPEATS; k++) {
        PyObject *earlier = PySequence_Fast_GET_ITEM(answers, k);
        if (earlier == answer || PyUnicode_Compare(earlier, answer) == 0) return 1;
    }
    return 0;
}

static PyObject *squad_rows(PyObject *module, PyObject *args) {
    PyObject *responses, *answer_sets, *specs, *row_rules;
    int graded;
    Py_ssize_t max_chars;
    if (!PyArg_ParseTuple(args, "O!O!O!Opn", &PyList_Type, &responses, &PyList_Type, &answer_sets, &PyTuple_Type,
                          &specs, &row_rules, &graded, &max_chars))
        return NULL;
    Py_ssize_t rows = PyList_GET_SIZE(responses), rule_count = PyTuple_GET_SIZE(specs);
    if (PyList_GET_SIZE(answer_sets) != rows || rule_count < 1 || rule_count > 255 ||
        (row_rules != Py_None && (!PyBytes_Check(row_rules) || PyBytes_GET_SIZE(row_rules) != rows))) {
        PyErr_SetString(PyExc_ValueError, "responses, answer sets and row rules differ in length, or no rule");
        return NULL;
    }
    if (squad_lower_name == NULL && (squad_lower_name = PyUnicode_InternFromString("lower")) == NULL) return NULL;
    SquadRule *rules = PyMem_Calloc(rule_count, sizeof(SquadRule));
    SquadText response = {0}, golden = {0};
    SquadCounts counts = {0};
    PyObject *outcomes = NULL, *index = NULL, *values = NULL, *skipped = NULL, *result = NULL;
    if (rules == NULL) return PyErr_NoMemory();
    for (Py_ssize_t r = 0; r < rule_count; r++) {
        if (squad_rule_of(PyTuple_GET_ITEM(specs, r), &rules[r]) < 0) goto done;
    }
    outcomes = PyBytes_FromStringAndSize(NULL, rows);
    index = PyBytes_FromStringAndSize(NULL, rows * (Py_ssize_t)sizeof(int32_t));
    values = PyBytes_FromStringAndSize(NULL, graded ? rows * (Py_ssize_t)sizeof(double) : 0);
    skipped = PyList_New(0);
    if (!outcomes || !index || !values || !skipped) goto done;
    char *outcome_out = PyBytes_AS_STRING(outcomes);
    int32_t *index_out = (int32_t *)PyBytes_AS_STRING(index);
    double *value_out = (double *)PyBytes_AS_STRING(values);
    const unsigned char *rule_of_row = row_rules == Py_None ? NULL : (const unsigned char *)PyBytes_AS_STRING(row_rules);
    for (Py_ssize_t row = 0; row < rows; row++) {
        PyObject *text = PyList_GET_ITEM(responses, row), *answers = PyList_GET_ITEM(answer_sets, row);
        unsigned rule_index = rule_of_row ? rule_of_row[row] : 0;
        outcome_out[row] = 0;
        index_out[row] = -1;
        if (graded) value_out[row] = 0.0;
        int long_text = squad_too_long(text, answers, max_chars);
        if (long_text < 0) goto done;
        if (rule_index >= (unsigned)rule_count) continue; /* a language without rules: Python says why */
        if (long_text) {
            PyObject *number = PyLong_FromSsize_t(row);
            int failed = number == NULL || PyList_Append(skipped, number) < 0;
            Py_XDECREF(number);
            if (failed) goto done;
            continue;
        }
        const SquadRule *rule = &rules[rule_index];
        if (squad_normalise(text, rule, &response) < 0) goto done;
        if (graded && squad_count(&counts, &response) < 0) {
            PyErr_NoMemory();
            goto done;
        }
        double best = -1.0;
        for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(answers); j++) {
            if (squad_repeated(answers, j)) continue; /* scores as the earlier one did, which came first */
            if (squad_normalise(PySequence_Fast_GET_ITEM(answers, j), rule, &golden) < 0) goto done;
            if (graded) {
                double f1 = squad_f1(squad_common(&counts, &response, &golden), response.count, golden.count);
                if (f1 > best) {
                    best = f1;
                    index_out[row] = (int32_t)j;
                    value_out[row] = f1;
                }
            } else if (squad_same_tokens(&response, &golden)) {
                outcome_out[row] = 1;
                index_out[row] = (int32_t)j;
                break;
            }
        }
        if (graded) outcome_out[row] = best == 1.0;
    }
    result = PyTuple_Pack(4, outcomes, index, graded ? values : Py_None, skipped);
done:
    for (Py_ssize_t r = 0; r < rule_count; r++) squad_rule_free(&rules[r]);
    PyMem_Free(rules);
    SquadText *texts[] = {&response, &golden};
    for (int k = 0; k < 2; k++) {
        PyMem_Free(texts[k]->chars);
        PyMem_Free(texts[k]->starts);
        PyMem_Free(texts[k]->lengths);
        PyMem_Free(texts[k]->hashes);
    }
    PyMem_Free(counts.token);
    PyMem_Free(counts.count);
    PyMem_Free(counts.used);
    Py_XDECREF(outcomes);
    Py_XDECREF(index);
    Py_XDECREF(values);
    Py_XDECREF(skipped);
    return result;
}
