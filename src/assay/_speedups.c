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
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "assay._speedups", NULL, 0, methods};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&module); }
