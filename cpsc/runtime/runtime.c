#define _GNU_SOURCE
/* The cpsc runtime: what compiled FL programs call. Every allocation goes to the Boehm GC.
   Strings are {int64 length; bytes} records; stdout is buffered and flushed at exit, as OCaml.
   The program runs on a thread with a large stack, so that deep (non-tail) recursion works; running
   off its end raises Stack_overflow (message on stderr, status 2) instead of crashing. */
#define GC_THREADS
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gc.h>
#include <gc/gc_inline.h>
#include <gc/gc_mark.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <time.h>

typedef struct { int64_t length; char bytes[]; } fl_string;

static fl_string *make_string(const char *bytes, int64_t n);

static char out_buffer[1 << 16];
static size_t out_used;

void fl_flush(void) {
    if (out_used) fwrite(out_buffer, 1, out_used, stdout);
    out_used = 0;
    fflush(stdout);
}

static void out_write(const char *bytes, size_t n) {
    if (out_used + n > sizeof out_buffer) {
        fl_flush();
        if (n > sizeof out_buffer) { fwrite(bytes, 1, n, stdout); return; }
    }
    memcpy(out_buffer + out_used, bytes, n);
    out_used += n;
}

/* Small blocks come from free lists, one per size in 16-byte granules, refilled a batch at a
   time by GC_generic_malloc_many: on the binary-trees benchmark (depth 20) this took 7.0 s
   against 10.3 s for a GC_malloc per block (docs/representation.md has the figures). Compiled
   code pops a block off a list inline (cpsc/llvm/lower.py, `small_allocator`) and calls fl_alloc
   only when the list is empty. Only the program's thread allocates, so the lists need no lock.

   The blocks are of a kind of our own (`block_kind`): scanned as GC_malloc's, but neither
   cleared nor given the extra byte GC_malloc adds for pointers just past an object's end.
   Compiled code stores every word of a block it takes (`FunctionLowering.allocate`: its
   fields, and zero in a padding word) before anything can collect, and never keeps a pointer
   past a block's end, so a cons cell takes 16 bytes and not 32, and refilling a list links
   the blocks without clearing them: 30% fewer instructions on the pipeline benchmark, 17% and
   58% less memory on binary_trees (docs/representation.md). A block waiting in a list holds
   what its last use left in it, so the lists are emptied at the start of every collection
   (`forget_free_lists`): what they held is not kept alive by them. */
#define SMALL_GRANULES 16
void *fl_free_lists[SMALL_GRANULES + 1];

static void flush_channels(void);

/* The heap cannot grow: what an OCaml program does when nothing catches Out_of_memory (the
   message, status 2). libgc calls it where an allocation fails (GC_set_oom_fn), rather than
   give compiled code a NULL to write through. */
static void *out_of_memory(size_t bytes) {
    (void)bytes;
    static const char message[] = "Fatal error: exception Out_of_memory\n";
    fl_flush();
    flush_channels();
    ssize_t ignored = write(2, message, sizeof message - 1);
    (void)ignored;
    _exit(2);
}
static int block_kind = -1;

/* One block of the kind, when GC_generic_malloc_many gives a single one (below). GC_generic_malloc
   rounds a size up with the extra byte: one byte less keeps the size class. */
static void *one_block(size_t granules) {
    void *block = GC_generic_malloc((granules << 4) - (size_t)GC_get_all_interior_pointers(), block_kind);
    if (block != NULL) GC_NEXT(block) = NULL;
    return block;
}

void *fl_alloc(int64_t bytes) {
    size_t granules = ((size_t)bytes + 15) >> 4;
    if (granules > SMALL_GRANULES || granules == 0) return GC_malloc((size_t)bytes);
    void *block = fl_free_lists[granules];
    if (block == NULL) {
        GC_generic_malloc_many(granules << 4, block_kind, &block);
        if (block == NULL) out_of_memory(granules << 4);
        /* When no free heap block is left, GC_generic_malloc_many gives one object, and goes
           on doing so, searching the heap's free blocks each time, until a collection: map_graph
           at -O2 made 870,000 such calls, half its time (bdwgc issue #453). GC_generic_malloc
           takes the way that collects or grows the heap, and leaves a block's worth in the free
           list GC_generic_malloc_many takes from next (docs/representation.md). */
        if (GC_NEXT(block) == NULL) GC_NEXT(block) = one_block(granules);
    }
    fl_free_lists[granules] = GC_NEXT(block);
    return block;
}

/* A block whose words are zero until the program fills them: a `let rec` value's dummy, the
   program's globals. */
void *fl_alloc_zeroed(int64_t bytes) {
    return GC_malloc((size_t)bytes);
}

/* A `let rec` value's dummy block (fl_alloc_zeroed, so scanned whatever it will hold) gets the slots
   of the value built for it, keeping its identity (OCaml's caml_update_dummy). */
void fl_update_dummy(void *dummy, const void *value, int64_t slots) {
    memcpy(dummy, value, 8 * (size_t)slots);
}

/* A block with no pointer in it (only numbers, chars, immediates, a string's bytes): never
   scanned. Small ones come from free lists too, refilled by GC_generic_malloc_many: the
   collector's own GC_malloc_atomic takes its allocation lock (a pthread mutex) and a
   thread-local lookup on every call, 16% of the sort benchmark's time. The collector does not
   scan these blocks, so it would not see the links of such a list and could reclaim the
   blocks waiting in it: the lists are emptied at the start of every collection
   (`forget_free_lists`), so that no block taken before a collection is handed out after it. */
void *fl_atomic_free_lists[SMALL_GRANULES + 1];

static void forget_free_lists(void) {
    memset(fl_atomic_free_lists, 0, sizeof fl_atomic_free_lists);
    memset(fl_free_lists, 0, sizeof fl_free_lists);
}

void *fl_alloc_atomic(int64_t bytes) {
    size_t granules = ((size_t)bytes + 15) >> 4;
    if (granules > SMALL_GRANULES || granules == 0) return GC_malloc_atomic((size_t)bytes);
    void *block = fl_atomic_free_lists[granules];
    if (block == NULL) {
        /* One byte more, rounded up, as GC_malloc_many and GC_malloc_atomic ask for: with
           interior pointers recognised, a pointer just past a block's end must not keep
           (only) the next block alive. */
        GC_generic_malloc_many(((granules << 4) + 1 + 15) & ~(size_t)15, GC_I_PTRFREE, &block);
        if (block == NULL) out_of_memory(granules << 4);
        if (GC_NEXT(block) == NULL) {  /* as in fl_alloc; an atomic block is not cleared: end the list */
            void *second = GC_malloc_atomic(granules << 4);
            if (second != NULL) GC_NEXT(second) = NULL;
            GC_NEXT(block) = second;
        }
    }
    fl_atomic_free_lists[granules] = GC_NEXT(block);
    return block;
}

/* The program's globals (main's variables that other functions use): a GC-allocated record of
   8-byte slots made by fl_program. The pointer lives here, in the runtime's data, which the
   collector scans both in an executable and in the shared library the JIT loads (memory that
   MCJIT allocates for a program's own globals is not scanned). */
void *fl_globals;

/* The arguments of an FL call past those x86-64 passes in registers (6 integers or pointers, 8
   floats), as OCaml's caml_extra_params: the caller stores them here just before the call and
   the callee loads them first thing, so no FL call passes arguments on the stack (LLVM 22 drops
   the stack arguments of a `musttail` call, llvm-project issue 199224). The compiler rejects a
   function with more than FL_EXTRA_ARGS of them. */
#define FL_EXTRA_ARGS 4096
int64_t fl_extra_args[FL_EXTRA_ARGS];

static fl_string *make_string(const char *bytes, int64_t n) {
    fl_string *s = fl_alloc_atomic(sizeof(fl_string) + (size_t)n + 1);
    s->length = n;
    memcpy(s->bytes, bytes, (size_t)n);
    s->bytes[n] = 0;
    return s;
}

void fl_print_int(int64_t x) { char b[32]; int n = snprintf(b, sizeof b, "%lld", (long long)x); out_write(b, (size_t)n); }
void fl_print_char(int8_t c) { char ch = (char)c; out_write(&ch, 1); }
void fl_print_string(fl_string *s) { out_write(s->bytes, (size_t)s->length); }

/* stderr is written at once (what OCaml's stderr shows by the time the program ends). */
void fl_prerr_string(fl_string *s) { fwrite(s->bytes, 1, (size_t)s->length, stderr); }

static int format_float(double x, char *b, size_t size) {
    if (isnan(x)) return snprintf(b, size, signbit(x) ? "-nan" : "nan");
    if (isinf(x)) return snprintf(b, size, x > 0 ? "inf" : "-inf");
    int n = snprintf(b, size, "%.12g", x);
    for (int i = 0; i < n; i++) if (b[i] != '-' && (b[i] < '0' || b[i] > '9')) return n;
    b[n++] = '.'; b[n] = 0;
    return n;
}

void fl_print_float(double x) { char b[64]; int n = format_float(x, b, sizeof b); out_write(b, (size_t)n); }
fl_string *fl_string_of_float(double x) { char b[64]; int n = format_float(x, b, sizeof b); return make_string(b, n); }
fl_string *fl_string_of_int(int64_t x) { char b[32]; int n = snprintf(b, sizeof b, "%lld", (long long)x); return make_string(b, n); }

fl_string *fl_concat(fl_string *a, fl_string *b) {
    fl_string *s = fl_alloc_atomic(sizeof(fl_string) + (size_t)(a->length + b->length) + 1);
    s->length = a->length + b->length;
    memcpy(s->bytes, a->bytes, (size_t)a->length);
    memcpy(s->bytes + a->length, b->bytes, (size_t)b->length);
    s->bytes[s->length] = 0;
    return s;
}

int64_t fl_compare_string(fl_string *a, fl_string *b) {
    int64_t n = a->length < b->length ? a->length : b->length;
    int c = memcmp(a->bytes, b->bytes, (size_t)n);
    if (c != 0) return c < 0 ? -1 : 1;
    return (a->length > b->length) - (a->length < b->length);
}

int64_t fl_compare_float(double a, double b) {
    if (a < b) return -1;
    if (a > b) return 1;
    if (a == b) return 0;
    if (isnan(a)) return isnan(b) ? 0 : -1;
    return 1;
}

int64_t fl_int_of_float(double x) {
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return INT64_MIN;
    return (int64_t)x;
}

void fl_exit(int64_t status) { fl_flush(); exit((int)status); }

/* Exceptions (docs/exceptions.md): a raise stores the exception here and returns; every call
   that may raise tests it. An exception is a block whose slot 0 points to its identity. */
void *fl_exception = NULL;

/* An exception's identity (cpsc/llvm/lower.py, exception_id): what an uncaught one prints
   (its name, and how to print its arguments), its place in `compare`'s order, and the identity
   declared, of which a local exception's evaluations are copies. */
typedef struct { fl_string *name; fl_string *kinds; int64_t order; void *declared; } fl_exception_id;

/* `let exception E`: each evaluation makes an identity of its own, ordered after the declared
   ones (ordered by a hash below 2^56: cpsc/semantics/builtins.py, ExceptionId.order). */
static int64_t fresh_exception_order = (int64_t)1 << 56;

void *fl_fresh_exception(const fl_exception_id *declared) {
    fl_exception_id *id = fl_alloc(sizeof *id);
    *id = *declared;
    id->order = fresh_exception_order++;
    return id;
}

static void append(char *out, size_t size, size_t *n, const char *text) {
    while (*text && *n + 1 < size) out[(*n)++] = *text++;
    out[*n] = 0;
}

fl_string *fl_format_string(fl_string *spec, fl_string *s);

/* One argument, printed as OCaml's runtime prints it knowing only its representation; the
   kind comes from the type at compile time (cpsc/semantics/builtins.py, ExceptionId). With
   `printexc`, as Printexc.to_string prints it: a string as %S, a float as string_of_float. */
static void format_argument(char kind, int64_t slot, int printexc, char *out, size_t size, size_t *n) {
    char number[64];
    if (kind == 'i' || (kind == 'd' && (slot & 1))) {
        snprintf(number, sizeof number, "%lld", (long long)(kind == 'i' ? slot : slot >> 1));
        append(out, size, n, number);
    } else if (kind == 's' && printexc) {
        append(out, size, n, fl_format_string(make_string("%S", 2), (fl_string *)(intptr_t)slot)->bytes);
    } else if (kind == 's') {
        append(out, size, n, "\"");
        append(out, size, n, ((fl_string *)(intptr_t)slot)->bytes);
        append(out, size, n, "\"");
    } else if (kind == 'f' && printexc) {
        double x;
        memcpy(&x, &slot, sizeof x);
        format_float(x, number, sizeof number);
        append(out, size, n, number);
    } else {
        append(out, size, n, "_");
    }
}

static void format_exception(int64_t *exn, int printexc, char *out, size_t size) {
    fl_exception_id *id = (fl_exception_id *)(intptr_t)exn[0];
    const char *kinds = id->kinds->bytes;
    int64_t *args = exn + 1;
    size_t n = 0;
    out[0] = 0;
    append(out, size, &n, id->name->bytes);
    if (kinds[0] == 'T') {  /* Match_failure, Assert_failure: their tuple's components */
        args = (int64_t *)(intptr_t)exn[1];
        kinds = "sii";
    } else if (kinds[0] == 'R') {  /* `exception E of { ... }`: the record's fields */
        args = (int64_t *)(intptr_t)exn[1];
        kinds++;
    }
    if (kinds[0] == 0) return;
    append(out, size, &n, "(");
    for (size_t i = 0; kinds[i]; i++) {
        if (i > 0) append(out, size, &n, ", ");
        format_argument(kinds[i], args[i], printexc, out, size, &n);
    }
    append(out, size, &n, ")");
}

/* Printexc.to_string (OCaml 4.13's to_string_default; cpsc/semantics/builtins.py says the same
   in Python): the locations of Match_failure and Assert_failure, Stack_overflow and Out_of_memory in words,
   any other exception as the uncaught-exception message prints it, with its strings escaped. */
fl_string *fl_exn_to_string(int64_t *exn) {
    fl_exception_id *id = (fl_exception_id *)(intptr_t)exn[0];
    char text[8192];
    int n;
    if (strcmp(id->name->bytes, "Stack_overflow") == 0) return make_string("Stack overflow", 14);
    if (strcmp(id->name->bytes, "Out_of_memory") == 0) return make_string("Out of memory", 13);
    if (id->kinds->bytes[0] == 'T') {
        int64_t *where = (int64_t *)(intptr_t)exn[1];
        int matching = strcmp(id->name->bytes, "Match_failure") == 0;
        n = snprintf(text, sizeof text, "File \"%s\", line %lld, characters %lld-%lld: %s",
                     ((fl_string *)(intptr_t)where[0])->bytes, (long long)where[1], (long long)where[2],
                     (long long)(where[2] + (matching ? 5 : 6)),
                     matching ? "Pattern matching failed" : "Assertion failed");
        return make_string(text, n < (int)sizeof text ? n : (int)sizeof text - 1);
    }
    format_exception(exn, 1, text, sizeof text);
    return make_string(text, (int64_t)strlen(text));
}

/* Backtraces, as OCaml's (docs/exceptions.md). A program built with -g notes each raise
   (fl_raise_at, with its kind and place: 'R' a raise, 'r' raising again what a handler caught,
   'P' a primitive operation) and each call an exception leaves through (fl_called_from); they
   are recorded while OCAMLRUNPARAM has b or after Printexc.record_backtrace true. A raise starts
   the backtrace again, unless it raises again the exception last raised. */
#define BACKTRACE_SLOTS 1024
typedef struct { char kind; const char *where; int64_t length; } backtrace_slot;
static backtrace_slot backtrace[BACKTRACE_SLOTS];
static int backtrace_used;
static int backtrace_active;
static int debug_info;  /* whether the program was built with -g */
static void *backtrace_exception;  /* the exception the slots are of */

void fl_debug_info(void) { debug_info = 1; }

static void backtrace_push(char kind, const char *where, int64_t length) {
    if (backtrace_used < BACKTRACE_SLOTS) backtrace[backtrace_used++] = (backtrace_slot){ kind, where, length };
}

/* After Printexc.raise_with_backtrace restores a backtrace, the call it leaves through is
   where the exception is raised again ("Re-raised at"), and the last slot, as in OCaml's
   (whose primitive records no frame after it). */
static int reraise_pending, frames_sealed;

static void push_frame(const fl_string *where) {
    if (frames_sealed) return;
    frames_sealed = reraise_pending;
    backtrace_push(reraise_pending ? 'r' : 'C', where->bytes, where->length);
    reraise_pending = 0;
}

void fl_raise_at(void *exn, fl_string *where) {
    reraise_pending = frames_sealed = 0;
    if (!backtrace_active) return;
    if (where->bytes[0] != 'r' || exn != backtrace_exception) backtrace_used = 0;
    backtrace_exception = exn;
    backtrace_push(where->bytes[0], where->bytes + 1, where->length - 1);
}

void fl_called_from(void *exn, fl_string *where) {
    if (backtrace_active && exn == backtrace_exception) push_frame(where);
}

/* A call that inlining removed, which the exception leaves through (cpsc/opt/inline.py). */
void fl_inlined_frame(void *exn, fl_string *where) {
    if (backtrace_active && exn == backtrace_exception) push_frame(where);
}

void fl_backtrace_record(int64_t on) { backtrace_active = on != 0; }

int64_t fl_backtrace_status(void) { return backtrace_active; }

/* The slots, a line each: the kind, then the place (what Printexc's raw backtraces hold). */
fl_string *fl_backtrace_slots(void) {
    int64_t n = 0;
    for (int i = 0; i < backtrace_used; i++) n += backtrace[i].length + 2;
    fl_string *text = make_string("", 0);
    if (n == 0) return text;
    char *bytes = GC_MALLOC_ATOMIC((size_t)n + 1), *p = bytes;
    for (int i = 0; i < backtrace_used; i++) {
        *p++ = backtrace[i].kind;
        memcpy(p, backtrace[i].where, (size_t)backtrace[i].length);
        p += backtrace[i].length;
        *p++ = '\n';
    }
    return make_string(bytes, n);
}

/* The calls running, in a program built with -g: the place of each call in progress (compiled
   code stores it before the call and takes it off after, cpsc/llvm/lower.py `enter_call`), as
   Printexc.get_callstack's slots, the innermost first. */
#define CALLSTACK_SLOTS 65536
fl_string *fl_callstack_sites[CALLSTACK_SLOTS];
int64_t fl_callstack_depth;

fl_string *fl_callstack(int64_t wanted) {
    int64_t top = fl_callstack_depth < CALLSTACK_SLOTS ? fl_callstack_depth : CALLSTACK_SLOTS;
    int64_t count = wanted < top ? wanted : top, n = 0;
    for (int64_t i = 0; i < count; i++) n += fl_callstack_sites[top - 1 - i]->length + 2;
    if (n == 0) return make_string("", 0);
    char *bytes = GC_MALLOC_ATOMIC((size_t)n + 1), *p = bytes;
    for (int64_t i = 0; i < count; i++) {
        const fl_string *where = fl_callstack_sites[top - 1 - i];
        *p++ = 'C';
        memcpy(p, where->bytes, (size_t)where->length);
        p += where->length;
        *p++ = '\n';
    }
    return make_string(bytes, n);
}

/* Printexc.raise_with_backtrace: the slots given become the exception's. */
void fl_backtrace_restore(void *exn, fl_string *slots) {
    backtrace_used = 0;
    reraise_pending = 1;
    frames_sealed = 0;
    backtrace_exception = exn;
    const char *p = slots->bytes, *end = slots->bytes + slots->length;
    while (p < end) {
        const char *line_end = memchr(p, '\n', (size_t)(end - p));
        if (line_end == NULL) line_end = end;
        if (line_end - p > 1) {
            char *where = GC_MALLOC_ATOMIC((size_t)(line_end - p));
            memcpy(where, p + 1, (size_t)(line_end - p - 1));
            backtrace_push(p[0], where, line_end - p - 1);
        }
        p = line_end + 1;
    }
}

static void print_backtrace(void) {
    if (!debug_info) {
        fprintf(stderr, "(Cannot print stack backtrace: no debug information available)\n");
        return;
    }
    for (int i = 0; i < backtrace_used; i++) {
        int raised = backtrace[i].kind == 'R' || backtrace[i].kind == 'r';
        const char *how = raised ? (i == 0 ? "Raised at" : "Re-raised at")
                        : i == 0 ? "Raised by primitive operation at" : "Called from";
        fprintf(stderr, "%s %.*s\n", how, (int)backtrace[i].length, backtrace[i].where);
    }
}

/* OCAMLRUNPARAM (or CAMLRUNPARAM), as OCaml's runtime reads it: `b` (or b=1) records backtraces. */
static void read_runparam(void) {
    const char *options = getenv("OCAMLRUNPARAM");
    if (options == NULL) options = getenv("CAMLRUNPARAM");
    backtrace_active = 0;
    debug_info = 0;
    fl_callstack_depth = 0;
    reraise_pending = frames_sealed = 0;
    backtrace_used = 0;
    backtrace_exception = NULL;
    for (const char *p = options; p != NULL && *p != '\0'; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        if (p[0] == 'b') backtrace_active = p[1] != '=' || (p[2] != '\0' && p[2] != ',' && atoi(p + 2) != 0);
    }
}

/* An exception escaped the program: flush stdout, say so as OCaml does (with the backtrace
   when recording), exit 2. */
static void fl_uncaught(void *exn) {
    char message[4096];
    format_exception(exn, 0, message, sizeof message);
    fl_flush();
    fprintf(stderr, "Fatal error: exception %s\n", message);
    if (backtrace_active) print_backtrace();
    exit(2);
}

/* OCaml's int_of_string at 64 bits (cpsc/syntax/builtins.py says the same in Python); 0 if
   the string is not an integer (the prelude then raises Failure "int_of_string"). */
static int parse_int(const fl_string *s, int64_t *result) {
    const char *p = s->bytes, *end = s->bytes + s->length;
    int negative = 0;
    if (p < end && (*p == '-' || *p == '+')) negative = *p++ == '-';
    int base = 10, prefixed = 0;  /* 0x 0o 0b 0u: may fill 64 bits (0u is decimal, unsigned) */
    if (end - p >= 2 && p[0] == '0') {
        char c = p[1];
        if (c == 'x' || c == 'X') base = 16; else if (c == 'o' || c == 'O') base = 8;
        else if (c == 'b' || c == 'B') base = 2;
        prefixed = base != 10 || c == 'u' || c == 'U';
        if (prefixed) p += 2;
    }
    if (p == end || *p == '_') return 0;
    uint64_t value = 0;
    for (; p < end; p++) {
        if (*p == '_') continue;
        int digit;
        if (*p >= '0' && *p <= '9') digit = *p - '0';
        else if (*p >= 'a' && *p <= 'f') digit = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F') digit = *p - 'A' + 10;
        else digit = 99;
        if (digit >= base) return 0;
        if (value > (UINT64_MAX - (uint64_t)digit) / (uint64_t)base) return 0;
        value = value * (uint64_t)base + (uint64_t)digit;
    }
    if (!prefixed && value > (uint64_t)INT64_MAX + (negative ? 1u : 0u)) return 0;
    *result = negative ? (int64_t)(0 - value) : (int64_t)value;
    return 1;
}

int64_t fl_int_of_string_ok(fl_string *s) { int64_t x; return parse_int(s, &x); }
int64_t fl_int_of_string(fl_string *s) { int64_t x = 0; parse_int(s, &x); return x; }

static int parse_float(const fl_string *s, double *result) {
    char *copy = fl_alloc_atomic((size_t)s->length + 1), *q = copy;
    for (int64_t i = 0; i < s->length; i++) if (s->bytes[i] != '_') *q++ = s->bytes[i];
    *q = 0;
    char *end;
    *result = strtod(copy, &end);
    return !(end == copy || *end != 0);
}

int64_t fl_float_of_string_ok(fl_string *s) { double x; return parse_float(s, &x); }
double fl_float_of_string(fl_string *s) { double x = 0; parse_float(s, &x); return x; }

/* Whether stdin is at its end (stdout flushed first, as OCaml's read_line does). */
int64_t fl_at_eof(void) {
    fl_flush();
    int c = getc(stdin);
    if (c == EOF) return 1;
    ungetc(c, stdin);
    return 0;
}

/* read_line once fl_at_eof said there is a line: the next line of stdin without its newline. */
fl_string *fl_read_line(void) {
    fl_flush();
    char *line = NULL;
    size_t capacity = 0;
    ssize_t n = getline(&line, &capacity, stdin);
    if (n < 0) n = 0;
    if (n > 0 && line[n - 1] == '\n') n--;
    fl_string *s = make_string(line ? line : "", n);
    free(line);
    return s;
}

/* Channels of files (open_in, open_out...), by handle: 0 is stdin, read with the functions
   above; a handle is never reused (cpsc/semantics/channels.py does the same in Python). */
static char *c_string(const fl_string *s) {  /* (a literal may not end in a NUL) */
    char *copy = fl_alloc_atomic((size_t)s->length + 1);
    memcpy(copy, s->bytes, (size_t)s->length);
    copy[s->length] = 0;
    return copy;
}

#define MAX_CHANNELS 4096
/* OCaml's channel buffer (IO_BUFFER_SIZE): a read fills it with one read(2), so `input` and
   Scanf's look-ahead (1,024 bytes at a time) see the same bytes at once as OCaml's do */
#define CHANNEL_BUFFER_BYTES 65536
static FILE *channels[MAX_CHANNELS];
static char *channel_buffers[MAX_CHANNELS];  /* (glibc sizes a buffer it makes itself as it likes) */
static int64_t channel_count = 1;
static int last_channel_errno;

/* open_in_gen / open_out_gen (cpsc/stdlib/exit_and_channels.fl, `fl_open_gen`): open(2) with OCaml's flags, in
   the order of its type open_flag, and the permissions. */
static FILE *open_general(const char *path, int64_t mode) {
    static const int flags_of[] = { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_TRUNC, O_EXCL, 0, 0, O_NONBLOCK };
    int flags = 0;
    for (int bit = 0; bit < 9; bit++)
        if (mode & (1 << bit)) flags |= flags_of[bit];
    int fd = open(path, flags, (mode_t)((mode >> 9) & 0777));
    if (fd < 0) return NULL;
    FILE *file = fdopen(fd, mode & (1 << 19) ? "rb" : flags & O_APPEND ? "ab" : "wb");
    if (file == NULL) close(fd);
    return file;
}

int64_t fl_open_channel(fl_string *path, int64_t mode) {
    static const char *modes[] = { "rb", "wb", "ab" };
    if (channel_count >= MAX_CHANNELS) { last_channel_errno = EMFILE; return -1; }
    FILE *file = mode & (1 << 20) ? open_general(c_string(path), mode) : fopen(c_string(path), modes[mode]);
    if (file == NULL) { last_channel_errno = errno; return -1; }
    channel_buffers[channel_count] = malloc(CHANNEL_BUFFER_BYTES);
    setvbuf(file, channel_buffers[channel_count], _IOFBF, CHANNEL_BUFFER_BYTES);
    channels[channel_count] = file;
    return channel_count++;
}

fl_string *fl_channel_error(void) {
    const char *message = strerror(last_channel_errno);
    return make_string(message, (int64_t)strlen(message));
}

static FILE *channel(int64_t handle) {
    return handle > 0 && handle < channel_count ? channels[handle] : NULL;
}

void fl_close_channel(int64_t handle) {
    FILE *file = channel(handle);
    if (file != NULL) {
        fclose(file);
        channels[handle] = NULL;
        free(channel_buffers[handle]);
        channel_buffers[handle] = NULL;
    }
}

void fl_channel_write(int64_t handle, fl_string *s) {
    FILE *file = channel(handle);
    if (file != NULL) fwrite(s->bytes, 1, (size_t)s->length, file);
}

void fl_channel_flush(int64_t handle) {
    FILE *file = channel(handle);
    if (file != NULL) fflush(file);
}

static FILE *reading(int64_t handle) {
    if (handle == 0) { fl_flush(); return stdin; }
    return channel(handle);
}

/* in_channel_length, pos_in, seek_in and their out_channel twins: files only (-1 or 0 else) */
int64_t fl_channel_length(int64_t handle) {
    FILE *file = channel(handle);
    struct stat info;
    if (file == NULL) return -1;
    return fstat(fileno(file), &info) == 0 ? (int64_t)info.st_size : -1;
}

int64_t fl_channel_pos(int64_t handle) {
    FILE *file = channel(handle);
    return file != NULL ? (int64_t)ftell(file) : -1;
}

int64_t fl_channel_seek(int64_t handle, int64_t offset) {
    FILE *file = channel(handle);
    return file != NULL && offset >= 0 && fseek(file, (long)offset, SEEK_SET) == 0;
}

int64_t fl_channel_read_char(int64_t handle) {
    FILE *file = reading(handle);
    int c = file != NULL ? getc(file) : EOF;
    return c == EOF ? -1 : c;
}

/* OCaml's `input`: at least one byte unless at the end (reading once if none is buffered),
   at most max, and no more than the channel holds already: never a wait for more. */
fl_string *fl_channel_read_available(int64_t handle, int64_t max) {
    FILE *file = reading(handle);
    int c = file != NULL && max > 0 ? getc(file) : EOF;
    if (c == EOF) return make_string("", 0);
    char *bytes = fl_alloc_atomic((size_t)max);
    int64_t n = 0;
    bytes[n++] = (char)c;
    while (n < max && file->_IO_read_ptr < file->_IO_read_end) bytes[n++] = (char)getc(file);
    return make_string(bytes, n);
}

int64_t fl_channel_at_eof(int64_t handle) {
    FILE *file = reading(handle);
    if (file == NULL) return 1;
    int c = getc(file);
    if (c == EOF) return 1;
    ungetc(c, file);
    return 0;
}

fl_string *fl_channel_read_line(int64_t handle) {
    FILE *file = reading(handle);
    char *line = NULL;
    size_t capacity = 0;
    ssize_t n = file != NULL ? getline(&line, &capacity, file) : -1;
    if (n < 0) n = 0;
    if (n > 0 && line[n - 1] == '\n') n--;
    fl_string *s = make_string(line ? line : "", n);
    free(line);
    return s;
}

int64_t fl_remove_file(fl_string *path) {
    if (remove(c_string(path)) == 0) return 1;
    last_channel_errno = errno;
    return 0;
}

int64_t fl_file_exists(fl_string *path) { return access(c_string(path), F_OK) == 0; }

/* Sys's file system and shell (cpsc/stdlib/sys.fl); an error's text is fl_channel_error's. */
int64_t fl_is_directory(fl_string *path) {
    struct stat info;
    if (stat(c_string(path), &info) != 0) { last_channel_errno = errno; return -1; }
    return S_ISDIR(info.st_mode) ? 1 : 0;
}

int64_t fl_rename(fl_string *source, fl_string *target) {
    char *from = strdup(c_string(source));
    int failed = rename(from, c_string(target)) != 0;
    if (failed) last_channel_errno = errno;
    free(from);
    return !failed;
}

fl_string *fl_getcwd(void) {
    char path[PATH_MAX];
    if (getcwd(path, sizeof path) == NULL) path[0] = 0;
    return make_string(path, (int64_t)strlen(path));
}

int64_t fl_mkdir(fl_string *path, int64_t permissions) {
    if (mkdir(c_string(path), (mode_t)permissions) == 0) return 1;
    last_channel_errno = errno;
    return 0;
}

int64_t fl_rmdir(fl_string *path) {
    if (rmdir(c_string(path)) == 0) return 1;
    last_channel_errno = errno;
    return 0;
}

int64_t fl_chdir(fl_string *path) {
    if (chdir(c_string(path)) == 0) return 1;
    last_channel_errno = errno;
    return 0;
}

/* The entries but . and .., in the directory's order; when it cannot be read, one name that
   no entry can have: NUL, then the error. */
void *fl_readdir(fl_string *path) {
    DIR *dir = opendir(c_string(path));
    size_t count = 0, room = 16;
    fl_string **names = GC_malloc(room * sizeof *names);
    if (dir == NULL) {
        const char *message = strerror(errno);
        size_t n = strlen(message);
        char *text = malloc(n + 1);
        text[0] = 0;
        memcpy(text + 1, message, n);
        names[count++] = make_string(text, (int64_t)n + 1);
        free(text);
    } else {
        struct dirent *entry;
        while ((entry = readdir(dir)) != NULL) {
            if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
            if (count == room) {
                fl_string **bigger = GC_malloc(2 * room * sizeof *names);
                memcpy(bigger, names, room * sizeof *names);
                names = bigger;
                room *= 2;
            }
            names[count++] = make_string(entry->d_name, (int64_t)strlen(entry->d_name));
        }
        closedir(dir);
    }
    int64_t *array = GC_malloc(8 * (count + 1));
    array[0] = (int64_t)count;
    for (size_t i = 0; i < count; i++) array[i + 1] = (int64_t)(intptr_t)names[i];
    return array;
}

int64_t fl_command(fl_string *text) {
    int status = system(c_string(text));
    return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : 255;
}

/* Sys.time: the processor time the program has used, in seconds. */
double fl_cpu_time(void) { return (double)clock() / CLOCKS_PER_SEC; }

/* The collector's figures that the Gc module shows (cpsc/stdlib/weak_gc.fl), in words: 0 allocated
   (libgc counts a free list's refill when it is made), 1 the heap, 2 collections, 3 free. */
double fl_gc_counter(int64_t which) {
    switch (which) {
    case 0: return (double)GC_get_total_bytes() / 8;
    case 1: return (double)GC_get_heap_size() / 8;
    case 2: return (double)GC_get_gc_no();
    case 3: return (double)GC_get_free_bytes() / 8;
    default: return 0;
    }
}

int64_t fl_has_env(fl_string *name) { return getenv(c_string(name)) != NULL; }

fl_string *fl_getenv(fl_string *name) {
    const char *value = getenv(c_string(name));
    return make_string(value != NULL ? value : "", value != NULL ? (int64_t)strlen(value) : 0);
}

/* At the program's end, as OCaml's at_exit flushes every channel. */
static void flush_channels(void) {
    for (int64_t handle = 1; handle < channel_count; handle++)
        if (channels[handle] != NULL) fflush(channels[handle]);
}

/* Printf: one conversion (its spec as written, e.g. "%-5d") of one value, as OCaml's Printf
   formats it (cpsc/syntax/printf.py says the same in Python). */
static void spec_parts(const fl_string *spec, char *flags, char *conversion) {
    /* the spec without its conversion letter, in `flags`; the letter in `conversion` */
    size_t n = (size_t)spec->length - 1;
    memcpy(flags, spec->bytes, n);
    flags[n] = 0;
    *conversion = spec->bytes[n];
}

/* `text` padded to the spec's width: on the right with '-', else on the left with spaces, or
   with zeros after the sign when `zeros`. */
static fl_string *padded_with(const char *text, size_t length, const fl_string *spec, int zeros) {
    int left = 0;
    long width = 0;
    for (int64_t i = 1; i < spec->length - 1; i++) {
        char c = spec->bytes[i];
        if (c == '-') left = 1;
        else if (c >= '1' && c <= '9') { width = strtol(spec->bytes + i, NULL, 10); break; }
        else if (c == '.') break;
    }
    size_t total = (size_t)width > length ? (size_t)width : length;
    fl_string *s = fl_alloc_atomic(sizeof(fl_string) + total + 1);
    s->length = (int64_t)total;
    memset(s->bytes, zeros && !left ? '0' : ' ', total);
    if (left) memcpy(s->bytes, text, length);
    else if (zeros && length > 0 && (text[0] == '-' || text[0] == '+' || text[0] == ' ')) {
        s->bytes[0] = text[0];
        memcpy(s->bytes + total - length + 1, text + 1, length - 1);
    } else if (zeros && length > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        memcpy(s->bytes, text, 2);  /* (OCaml's fix_padding) */
        memcpy(s->bytes + total - length + 2, text + 2, length - 2);
    } else memcpy(s->bytes + total - length, text, length);
    s->bytes[total] = 0;
    return s;
}

static fl_string *padded(const char *text, size_t length, const fl_string *spec) {
    return padded_with(text, length, spec, 0);
}

static int has_flag(const char *flags, char flag) {
    for (const char *p = flags + 1; *p && strchr("-0+ #", *p); p++) if (*p == flag) return 1;
    return 0;
}

static long precision_of(const char *format) {
    const char *dot = strchr(format, '.');
    return dot ? atol(dot + 1) : -1;
}

static fl_string *formatted(const char *format, ...) {
    va_list args;
    va_start(args, format);
    char small[256];
    int n = vsnprintf(small, sizeof small, format, args);
    va_end(args);
    if (n < (int)sizeof small) return make_string(small, n);
    char *big = fl_alloc_atomic((size_t)n + 1);
    va_start(args, format);
    vsnprintf(big, (size_t)n + 1, format, args);
    va_end(args);
    return make_string(big, n);
}

/* OCaml's %#d: an underscore between groups of three digits (zero padding included). */
static fl_string *group_digits(fl_string *s) {
    int64_t digits = 0;
    for (int64_t i = 0; i < s->length; i++) digits += s->bytes[i] >= '0' && s->bytes[i] <= '9';
    char *out = fl_alloc_atomic((size_t)(s->length + digits / 3 + 1));
    int64_t n = 0, left = (digits - 1) % 3 + 1;
    for (int64_t i = 0; i < s->length; i++) {
        char c = s->bytes[i];
        if (c >= '0' && c <= '9') {
            if (left == 0) { out[n++] = '_'; left = 3; }
            left--;
        }
        out[n++] = c;
    }
    return make_string(out, n);
}

/* %#d, as OCaml makes it: the digits grouped first, then zeros up to the precision (counting
   the underscores), then the padding. */
static fl_string *grouped_int(const fl_string *spec, const char *format, char conversion, int64_t x) {
    fl_string *s = conversion == 'd' ? formatted("%lld", (long long)x) : formatted("%llu", (unsigned long long)x);
    s = group_digits(s);
    long precision = precision_of(format);
    int sign = s->bytes[0] == '-';
    if (precision >= 0 && precision + sign > s->length) {
        char *text = fl_alloc_atomic((size_t)(precision + sign) + 1);
        memset(text, '0', (size_t)(precision + sign));
        if (sign) text[0] = '-';
        memcpy(text + precision + sign - (s->length - sign), s->bytes + sign, (size_t)(s->length - sign));
        s = make_string(text, precision + sign);
    }
    return padded_with(s->bytes, (size_t)s->length, spec, has_flag(format, '0') && precision < 0);
}

fl_string *fl_format_int(fl_string *spec, int64_t x) {
    char format[64], conversion;
    spec_parts(spec, format, &conversion);
    if (conversion == 'i') conversion = 'd';
    if (has_flag(format, '#') && (conversion == 'u' || (conversion == 'd' && !has_flag(format, '+')
                                                         && !has_flag(format, ' '))))
        return grouped_int(spec, format, conversion, x);  /* '#' groups digits: not C's */
    if (conversion == 'd') {  /* (OCaml drops '#' beside a sign flag) */
        char *hash = strchr(format, '#');
        if (hash != NULL) memmove(hash, hash + 1, strlen(hash));
    }
    size_t n = strlen(format);
    format[n++] = 'l'; format[n++] = 'l'; format[n++] = conversion; format[n] = 0;
    return conversion == 'd' ? formatted(format, (long long)x) : formatted(format, (unsigned long long)x);
}

/* OCaml's hexadecimal float (%h, %#F; its runtime's caml_hexstring_of_float, which
   cpsc/semantics/formatting.py repeats): `precision` digits, or all that are needed when it
   is negative; returns the length written to `out` (at least precision + 32 bytes). */
static int hex_float(double x, long precision, char sign_style, char *out) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int exponent = (int)((bits >> 52) & 0x7FF), n = 0;
    uint64_t mantissa = bits & (((uint64_t)1 << 52) - 1);
    if (bits >> 63) out[n++] = '-';
    else if (sign_style == '+' || sign_style == ' ') out[n++] = sign_style;
    if (exponent == 0x7FF) return n + sprintf(out + n, "%s", mantissa == 0 ? "infinity" : "nan");
    if (exponent == 0) exponent = mantissa != 0 ? -1022 : 0;
    else { exponent -= 1023; mantissa |= (uint64_t)1 << 52; }
    if (precision >= 0 && precision < 13) {
        uint64_t unit = (uint64_t)1 << (52 - 4 * precision), half = unit >> 1;
        uint64_t fraction = mantissa & (unit - 1);
        mantissa &= ~(unit - 1);
        if (fraction > half || (fraction == half && (mantissa & unit) != 0)) mantissa += unit;
    }
    static const char digits[] = "0123456789abcdef";
    out[n++] = '0'; out[n++] = 'x';
    out[n++] = digits[mantissa >> 52];
    mantissa = (mantissa << 4) & (((uint64_t)1 << 56) - 1);
    if ((precision < 0 && mantissa != 0) || precision > 0) {
        out[n++] = '.';
        while ((precision < 0 && mantissa != 0) || precision > 0) {
            out[n++] = digits[mantissa >> 52];
            mantissa = (mantissa << 4) & (((uint64_t)1 << 56) - 1);
            precision--;
        }
    }
    return n + sprintf(out + n, "p%+d", exponent);
}

static char sign_style(const char *format) {
    return has_flag(format, '+') ? '+' : has_flag(format, ' ') ? ' ' : '-';
}

/* %h and %H */
static fl_string *ocaml_hex_float(const fl_string *spec, const char *format, char conversion, double x) {
    long precision = precision_of(format);
    char *text = fl_alloc_atomic((size_t)(precision > 0 ? precision : 0) + 40);
    int n = hex_float(x, precision, sign_style(format), text);
    if (conversion == 'H') for (int i = 0; i < n; i++) text[i] = (char)toupper((unsigned char)text[i]);
    return padded_with(text, (size_t)n, spec, has_flag(format, '0'));
}

/* %F: a float as OCaml source writes it (%#F: in hexadecimal). */
static fl_string *ocaml_float(const fl_string *spec, const char *format, double x) {
    if (isnan(x)) return padded_with("nan", 3, spec, has_flag(format, '0'));
    if (isinf(x)) return x > 0 ? padded_with("infinity", 8, spec, has_flag(format, '0'))
                               : padded_with("neg_infinity", 12, spec, has_flag(format, '0'));
    const char *dot = strchr(format, '.');
    char text[128];
    int n = 0;
    text[n++] = signbit(x) ? '-' : has_flag(format, '+') ? '+' : has_flag(format, ' ') ? ' ' : 0;
    if (text[0] == 0) n = 0;
    if (has_flag(format, '#')) {
        char *hex = fl_alloc_atomic((size_t)(precision_of(format) > 0 ? precision_of(format) : 0) + 40);
        int length = hex_float(x, precision_of(format), sign_style(format), hex);
        return padded_with(hex, (size_t)length, spec, has_flag(format, '0'));
    } else {
        int start = n, integer = 1;
        n += snprintf(text + n, sizeof text - (size_t)n, "%.*g", dot ? atoi(dot + 1) : 12, fabs(x));
        for (int i = start; i < n; i++) if (text[i] < '0' || text[i] > '9') integer = 0;
        if (integer) text[n++] = '.';
    }
    return padded_with(text, (size_t)n, spec, has_flag(format, '0'));
}

fl_string *fl_format_float(fl_string *spec, double x) {
    char format[64], conversion;
    spec_parts(spec, format, &conversion);
    if (conversion == 'F') return ocaml_float(spec, format, x);
    if (conversion == 'h' || conversion == 'H') return ocaml_hex_float(spec, format, conversion, x);
    char *hash = strchr(format, '#');  /* OCaml ignores it here */
    if (hash != NULL) memmove(hash, hash + 1, strlen(hash));
    if (isnan(x) || isinf(x)) {  /* the sign of a NaN shows too; OCaml pads with zeros */
        char text[8];
        int n = 0;
        if (signbit(x)) text[n++] = '-';
        else if (has_flag(format, '+')) text[n++] = '+';
        else if (has_flag(format, ' ')) text[n++] = ' ';
        int upper = conversion >= 'A' && conversion <= 'Z';
        memcpy(text + n, isnan(x) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"), 3);
        return padded_with(text, (size_t)n + 3, spec, has_flag(format, '0'));
    }
    size_t n = strlen(format);
    format[n++] = conversion; format[n] = 0;
    return formatted(format, x);
}

static size_t escaped_char(unsigned char c, char quote, char *out) {
    switch (c) {
    case '\\': memcpy(out, "\\\\", 2); return 2;
    case '\n': memcpy(out, "\\n", 2); return 2;
    case '\t': memcpy(out, "\\t", 2); return 2;
    case '\r': memcpy(out, "\\r", 2); return 2;
    case '\b': memcpy(out, "\\b", 2); return 2;
    default:
        if (c == (unsigned char)quote) { out[0] = '\\'; out[1] = quote; return 2; }
        if (c >= ' ' && c <= '~') { out[0] = (char)c; return 1; }
        return (size_t)sprintf(out, "\\%03d", c);
    }
}

/* %s, %S, %B as OCaml's: a precision cuts nothing; without a width it is the width
   (CamlinternalFormat's get_padprec), justified as the flags say */
static fl_string *string_padded(const char *text, size_t length, const fl_string *spec) {
    const char *dot = memchr(spec->bytes, '.', (size_t)spec->length);
    if (dot == NULL) return padded(text, length, spec);
    for (const char *p = spec->bytes + 1; p < dot; p++)
        if (*p >= '1' && *p <= '9') return padded(text, length, spec);
    char as_width[32];
    int n = snprintf(as_width, sizeof as_width, "%%%s%lds", memchr(spec->bytes, '-', (size_t)(dot - spec->bytes)) ? "-" : "",
                     atol(dot + 1));
    return padded(text, length, make_string(as_width, n));
}

fl_string *fl_format_string(fl_string *spec, fl_string *s) {
    char format[64], conversion;
    spec_parts(spec, format, &conversion);
    if (conversion == 'S') {
        char *text = fl_alloc_atomic(4 * (size_t)s->length + 3);
        size_t n = 0;
        text[n++] = '"';
        for (int64_t i = 0; i < s->length; i++) n += escaped_char((unsigned char)s->bytes[i], '"', text + n);
        text[n++] = '"';
        return string_padded(text, n, spec);
    }
    return string_padded(s->bytes, (size_t)s->length, spec);
}

fl_string *fl_format_char(fl_string *spec, int8_t c) {
    char format[64], conversion, text[8];
    spec_parts(spec, format, &conversion);
    size_t n = 0;
    if (conversion == 'C') {
        text[n++] = '\'';
        n += escaped_char((unsigned char)c, '\'', text + n);
        text[n++] = '\'';
    } else {
        text[n++] = (char)c;
    }
    return make_string(text, (int64_t)n);  /* OCaml pads no character */
}

/* Hashtbl.hash: OCaml's caml_hash on FL values, guided by a descriptor of their type
   (cpsc/syntax/hashing.py explains the descriptor and says the same in Python). */
#define ROTL32(x, n) ((x) << (n) | (x) >> (32 - (n)))

static uint32_t hash_mix(uint32_t h, uint32_t d) {
    d *= 0xcc9e2d51u; d = ROTL32(d, 15); d *= 0x1b873593u;
    h ^= d; h = ROTL32(h, 13);
    return h * 5 + 0xe6546b64u;
}

static uint32_t hash_mix_intnat(uint32_t h, int64_t d) {
    return hash_mix(h, (uint32_t)((d >> 32) ^ (d >> 63) ^ d));
}

static uint32_t hash_mix_double(uint32_t h, double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint32_t low = (uint32_t)bits, high = (uint32_t)(bits >> 32);
    if ((high & 0x7FF00000u) == 0x7FF00000u && (low | (high & 0xFFFFFu)) != 0) { high = 0x7FF00000u; low = 1; }
    else if (high == 0x80000000u && low == 0) high = 0;
    return hash_mix(hash_mix(h, low), high);
}

static uint32_t hash_mix_string(uint32_t h, const fl_string *s) {
    int64_t n = s->length, i = 0;
    const unsigned char *b = (const unsigned char *)s->bytes;
    for (; i + 4 <= n; i += 4) h = hash_mix(h, (uint32_t)b[i] | (uint32_t)b[i + 1] << 8 | (uint32_t)b[i + 2] << 16 | (uint32_t)b[i + 3] << 24);
    if (n & 3) {
        uint32_t w = 0;
        for (int64_t j = n - 1; j >= i; j--) w = w << 8 | b[j];
        h = hash_mix(h, w);
    }
    return h ^ (uint32_t)n;
}

/* The descriptor's nodes: the text of node k starts at nodes[k]. */
static int descriptor_nodes(const char *d, const char **nodes, int most) {
    int n = 0;
    nodes[n++] = d;
    for (const char *p = d; *p && n < most; p++) if (*p == ';') nodes[n++] = p + 1;
    return n;
}

static const char *next_number(const char *p, long *value) {  /* after a ',' or ':' */
    char *end;
    *value = strtol(p + 1, &end, 10);
    return end;
}

/* Hashtbl.seeded_hash_param meaningful total seed value, as OCaml's caml_hash */
int64_t fl_hash(fl_string *descriptor, int64_t meaningful, int64_t total, int64_t seed, int64_t value) {
    const char *nodes[256];
    descriptor_nodes(descriptor->bytes, nodes, 256);
    enum { QUEUE_SIZE = 256 };
    int64_t queue[QUEUE_SIZE];
    int kinds[QUEUE_SIZE];
    int64_t limit = total < 0 || total > QUEUE_SIZE ? QUEUE_SIZE : total, count = meaningful;
    int read = 0, written = 1;
    uint32_t h = (uint32_t)seed;
    queue[0] = value; kinds[0] = 0;
    while (read < written && count > 0) {
        int64_t v = queue[read];
        const char *node = nodes[kinds[read++]];
        char kind = node[0];
        if (kind == 'i') { h = hash_mix_intnat(h, 2 * v + 1); count--; }
        /* an int32, int64 or nativeint: OCaml's int32_hash, int64_hash, nativeint_hash */
        else if (kind == 'l') { h = hash_mix(h, (uint32_t)v); count--; }
        else if (kind == 'L') { h = hash_mix(h, (uint32_t)((v >> 32) ^ v)); count--; }
        else if (kind == 'n') { h = hash_mix_intnat(h, v); count--; }
        else if (kind == 'v' && (v & 1)) { h = hash_mix_intnat(h, v); count--; }  /* 2k+1 already */
        else if (kind == 'f') { double x; memcpy(&x, &v, sizeof x); h = hash_mix_double(h, x); count--; }
        /* a string, or a bytes (an array of bytes: a string's layout) */
        else if (kind == 's' || kind == 'B') { h = hash_mix_string(h, (fl_string *)(intptr_t)v); count--; }
        else if (kind == 'F' || kind == 'A') {
            int64_t *slots = (int64_t *)(intptr_t)v, n;
            if (kind == 'F') { long k; next_number(node + 1, &k); n = k; }
            else { n = slots[0]; slots++; }
            if (n == 0) h = hash_mix(h, 0);
            for (int64_t i = 0; i < n && count > 0; i++) {
                double x; memcpy(&x, &slots[i], sizeof x);
                h = hash_mix_double(h, x); count--;
            }
        } else if (kind == 'b') {  /* an array of bytes (bools, chars): immediates */
            int64_t n = *(int64_t *)(intptr_t)v;
            const unsigned char *bytes = (const unsigned char *)(intptr_t)v + 8;
            long element;
            next_number(node + 1, &element);
            h = hash_mix(h, (uint32_t)(n << 10));
            for (int64_t i = 0; i < n && written < limit; i++) {
                queue[written] = bytes[i];
                kinds[written++] = (int)element;
            }
        } else if (kind == 't' || kind == 'a' || kind == 'v') {
            int64_t *slots = (int64_t *)(intptr_t)v, n = 0, tag = 0;
            long children[64], element = -1;  /* an array's elements all have the one kind */
            const char *p = node + 1;
            if (kind == 't') {
                while (*p == ',' && n < 64) { p = next_number(p, &children[n]); n++; }
            } else if (kind == 'a') {
                next_number(p, &element);
                n = slots[0]; slots++;
            } else {
                long tagged;
                const char *q = next_number(p, &tagged);  /* at the ',' before constructor 0's children */
                if (tagged) { tag = slots[0]; slots++; }
                for (int64_t j = 0; j < tag && q; j++) q = strchr(q + 1, ',');
                do { q = next_number(q, &children[n]); n++; } while (*q == ':' && n < 64);
            }
            h = hash_mix(h, (uint32_t)((n << 10) | tag));
            for (int64_t i = 0; i < n && written < limit; i++) {
                queue[written] = slots[i];
                kinds[written++] = (int)(element >= 0 ? element : children[i]);
            }
        }
    }
    h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
    return (int64_t)(h & 0x3FFFFFFFu);
}

/* Sys.argv: the executable's arguments (the JIT's programs get just "prog"). */
static int program_argc = 0;
static char **program_argv = NULL;

/* The JIT's `cpsc run prog.ml a b` gives its program these (the strings stay the caller's). */
void fl_set_argv(int argc, char **argv) {
    program_argc = argc;
    program_argv = argv;
}

void *fl_argv(void) {
    static char *none[] = { "prog" };
    int argc = program_argv ? program_argc : 1;
    char **argv = program_argv ? program_argv : none;
    int64_t *array = GC_malloc(8 * ((size_t)argc + 1));
    array[0] = argc;
    for (int i = 0; i < argc; i++) array[i + 1] = (int64_t)(intptr_t)make_string(argv[i], (int64_t)strlen(argv[i]));
    return array;
}

/* As OCaml's Sys.executable_name on Linux: the file /proc/self/exe names, else argv[0]. */
fl_string *fl_executable_name(void) {
    char path[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    if (length < 0) {
        const char *name = program_argv ? program_argv[0] : "prog";
        return make_string(name, (int64_t)strlen(name));
    }
    return make_string(path, (int64_t)length);
}

/* Arrays: {int64 length; 8-byte slots}. The slots of an array of numbers hold no pointers, so
   it comes from the atomic allocator. Arrays of bools and chars are strings' blocks instead
   (fl_string_make): {int64 length; a byte each}. */
/* Random.self_init's seed, as OCaml's caml_sys_random_seed: 12 numbers from /dev/urandom, or
   from the time and the process when it cannot be read. */
void *fl_random_seed(void) {
    int64_t *array = fl_alloc_atomic(8 * 13);
    unsigned char bytes[48];
    FILE *urandom = fopen("/dev/urandom", "rb");
    size_t got = urandom ? fread(bytes, 1, sizeof bytes, urandom) : 0;
    if (urandom) fclose(urandom);
    array[0] = 12;
    for (int i = 0; i < 12; i++) {
        array[i + 1] = got == sizeof bytes
            ? (int64_t)bytes[4 * i] << 24 | bytes[4 * i + 1] << 16 | bytes[4 * i + 2] << 8 | bytes[4 * i + 3]
            : (int64_t)time(NULL) + i * (int64_t)getpid();
    }
    return array;
}

void *fl_array_make(int64_t n, int64_t bits, int64_t atomic) {
    size_t bytes = 8 * ((size_t)n + 1);
    int64_t *array = atomic ? fl_alloc_atomic(bytes) : GC_malloc(bytes);
    array[0] = n;
    for (int64_t i = 1; i <= n; i++) array[i] = bits;
    return array;
}

fl_string *fl_string_make(int64_t n, int8_t c) {
    fl_string *s = fl_alloc_atomic(sizeof(fl_string) + (size_t)n + 1);
    s->length = n;
    memset(s->bytes, c, (size_t)n);
    s->bytes[n] = 0;
    return s;
}

fl_string *fl_string_sub(fl_string *s, int64_t start, int64_t length) {
    return make_string(s->bytes + start, length);
}

int64_t fl_compare_float_partial(double a, double b) {
    if (a < b) return -1;
    if (a > b) return 1;
    if (a == b) return 0;
    return INT64_MIN;  /* unordered: nan met */
}

/* 1 GiB of address space: enough for 10 million frames of up to ~100 bytes.
   Pages are only touched as the recursion reaches them. */
#define PROGRAM_STACK_BYTES ((size_t)1 << 30)
#define GUARD_BYTES ((size_t)1 << 20)

static char *stack_low;  /* lowest usable address of the program's stack */
/* The handler before ours (in the JIT, the host's: Python's faulthandler, say), which any fault
   other than the stack's reaches, as if we were not there. */
static struct sigaction previous_segv;

static void on_segv(int sig, siginfo_t *info, void *context) {
    char *address = (char *)info->si_addr;
    if (stack_low != NULL && address < stack_low + 65536 && address >= stack_low - GUARD_BYTES) {
        static const char message[] = "Fatal error: exception Stack_overflow\n";
        if (out_used) { ssize_t ignored = write(1, out_buffer, out_used); (void)ignored; }
        ssize_t ignored = write(2, message, sizeof message - 1);
        (void)ignored;
        _exit(2);
    }
    if (previous_segv.sa_flags & SA_SIGINFO) {
        previous_segv.sa_sigaction(sig, info, context);
        return;
    }
    if (previous_segv.sa_handler != SIG_DFL && previous_segv.sa_handler != SIG_IGN) {
        previous_segv.sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL);  /* any other fault: die of it as usual */
}

static void *run_program(void *program) {
    static char alternate[1 << 16];
    stack_t ss = { .ss_sp = alternate, .ss_size = sizeof alternate, .ss_flags = 0 };
    sigaltstack(&ss, NULL);
    pthread_attr_t attr;
    pthread_getattr_np(pthread_self(), &attr);
    void *base; size_t size;
    pthread_attr_getstack(&attr, &base, &size);
    pthread_attr_destroy(&attr);
    stack_low = (char *)base;
    ((void (*)(void))program)();
    if (fl_exception != NULL) fl_uncaught(fl_exception);
    fl_flush();
    flush_channels();
    return NULL;
}

static void *join_program(void *thread) {
    pthread_join(*(pthread_t *)thread, NULL);
    return NULL;
}

/* Start the collector, never in libgc's incremental mode (GC_ENABLE_INCREMENTAL=1 in the
   environment asks for it): the runtime's free lists are taken over by compiled code, which libgc's
   incremental marking cannot follow (a program built a wrong table under it). The variable is
   hidden from libgc only, not from the program. */
static void collector_init(void) {
    const char *incremental = getenv("GC_ENABLE_INCREMENTAL");
    char *saved = incremental != NULL ? strdup(incremental) : NULL;
    if (saved != NULL) unsetenv("GC_ENABLE_INCREMENTAL");
    GC_INIT();
    if (saved != NULL) { setenv("GC_ENABLE_INCREMENTAL", saved, 1); free(saved); }
}

/* Run a compiled program: the executable's main calls it with fl_program, and the JIT
   (cpsc/llvm/jit.py) with the address of the JIT-compiled fl_program. */
int fl_run(void (*program)(void)) {
    collector_init();
    read_runparam();
    static char stdin_buffer[CHANNEL_BUFFER_BYTES];
    setvbuf(stdin, stdin_buffer, _IOFBF, CHANNEL_BUFFER_BYTES);
    /* Grow the heap rather than collect as often (the default divisor is 3): 1.5x faster on
       allocation-heavy programs for 1.6x the memory (docs/representation.md). */
    GC_set_free_space_divisor(2);
    GC_set_oom_fn(out_of_memory);
    GC_set_warn_proc(GC_ignore_warn_proc);  /* (its warnings are of no use to an FL program) */
    GC_set_start_callback(forget_free_lists);
    if (block_kind < 0) block_kind = (int)GC_new_kind(GC_new_free_list(), GC_DS_LENGTH, 1, 0);
    /* Start with a heap of 16 MiB unless the user chose a size: a program that allocates much
       and keeps little otherwise collects a heap of a few hundred KiB thousands of times (the
       pipeline benchmark: 2,286 collections, 0.95 s; with this, 0.48 s). */
    if (getenv("GC_INITIAL_HEAP_SIZE") == NULL) GC_expand_hp((size_t)16 << 20);
    struct sigaction action = { 0 };
    action.sa_sigaction = on_segv;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    struct sigaction current;
    sigaction(SIGSEGV, NULL, &current);
    if (current.sa_sigaction != on_segv) sigaction(SIGSEGV, &action, &previous_segv);  /* (not twice) */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, PROGRAM_STACK_BYTES);
    pthread_attr_setguardsize(&attr, GUARD_BYTES);
    pthread_t thread;
    if (pthread_create(&thread, &attr, run_program, (void *)program) != 0) {
        run_program((void *)program);  /* no big stack to be had: run on this one */
        return 0;
    }
    /* Waiting, this thread holds no value of the program: the collector need not stop it (a
       signal and a handshake at every collection otherwise). */
    GC_do_blocking(join_program, &thread);
    return 0;
}

#ifndef FL_NO_MAIN
extern void fl_program(void);

int main(int argc, char **argv) {
    program_argc = argc;
    program_argv = argv;
    return fl_run(fl_program);
}
#endif
