/*
 * trace.h: reading and writing commit-stage traces.
 *
 * Two formats share one event stream (record.h):
 *   - TraceDoctor: headerless 64-byte tokens as FireSim's TraceDoctor writes
 *     them, raw or zstd-compressed (docs/semantics.md, docs/trace-format.md);
 *   - native: the project's own zstd-framed record format with a header,
 *     a frame index and a footer of totals (docs/trace-format.md).
 * The reader detects the format from the content, never from the file name.
 */
#ifndef TEA_TRACE_TRACE_H
#define TEA_TRACE_TRACE_H

#include "psv.h"
#include "record.h"

#include <stdint.h>

typedef enum trace_format {
    TRACE_FORMAT_UNKNOWN = 0,
    TRACE_FORMAT_TRACEDOCTOR = 1,
    TRACE_FORMAT_NATIVE = 2
} trace_format;

/* "tracedoctor", "native" or "unknown". */
const char *trace_format_name(trace_format format);

/* Defaults for traces that carry no header (TraceDoctor): the TEA paper's
 * baseline BOOM core. */
#define TRACE_DEFAULT_WIDTH 4
#define TRACE_DEFAULT_ROB 192
#define TRACE_DEFAULT_CLOCK_HZ 3200000000ull
#define TRACE_DEFAULT_ARCH "riscv64"
#define TRACE_DEFAULT_VA_BITS 39
#define TRACE_DEFAULT_LLC_LATENCY 32 /* memlat cycles at or above which a load missed the LLC */

/* Longest architecture name, NUL included. */
#define TRACE_ARCH_MAX 32

/* What a trace says about itself. Strings are owned by the header (malloc'd)
 * and may be NULL when unknown. */
/* The traced program's identity, one structure for traces and PICS alike
 * (trace_header.program, pics_info.program): its architecture and its
 * binary with its build-id and load bias. The executable objects a trace
 * recorded beside it are a trace_object_list (trace/objects.h); the
 * symbolizer opens from the two (binary/symbolize.h). */
typedef struct trace_program {
    char arch[TRACE_ARCH_MAX];  /* "riscv64", "x86_64", "aarch64", ...; "" when unknown */
    char *binary_path;          /* traced program, when known */
    char *build_id;             /* its ELF build-id in lower-case hex, when known */
    uint64_t load_bias;         /* PIE load bias: run-time address - ELF address */
    int has_load_bias;          /* load_bias is meaningful */
} trace_program;

/* Deep copy; 0 or TEA_ERR_NOMEM (dst then holds no strings). */
int trace_program_copy(trace_program *dst, const trace_program *src);

/* Frees the strings and resets them to NULL. */
void trace_program_free(trace_program *p);

typedef struct trace_header {
    unsigned commit_width;      /* µops per ROB row, most commits per cycle (1..16) */
    unsigned rob_size;          /* ROB entries, a multiple of commit_width */
    uint64_t clock_hz;          /* core clock (Hz) */
    trace_program program;      /* the traced program: arch ("riscv64" by default), binary, build-id, bias */
    unsigned va_bits;           /* significant bits of a virtual address (PC) */
    unsigned llc_latency;       /* memlat threshold (cycles) that derived ST-LLC */
    unsigned initial_window;    /* ROB entries in flight before the first record */
    char *generator;            /* program and version that wrote the trace */
    char *command_line;         /* command that produced it */
    char *source_format;        /* format the records were converted from, if any */
} trace_header;

/* Fills `h` with the defaults above and no strings. */
void trace_header_init(trace_header *h);

/* Deep copy; returns 0 or TEA_ERR_NOMEM. */
int trace_header_copy(trace_header *dst, const trace_header *src);

/* Frees the strings and resets them to NULL. */
void trace_header_free(trace_header *h);

/* Replaces one string field (NULL clears it). Returns 0 or TEA_ERR_NOMEM. */
int trace_header_set(char **field, const char *value);

/* Counts over a stream, kept by readers and writers alike. */
typedef struct trace_totals {
    uint64_t records;        /* records (cycles with activity) */
    uint64_t first_cycle;    /* cycle of the first record (the origin) */
    uint64_t last_cycle;     /* cycle of the last record */
    uint64_t commits;        /* µops committed */
    uint64_t exceptions;     /* µops that excepted */
    uint64_t dispatched;     /* ROB entries allocated */
    uint64_t squashed;       /* ROB entries squashed */
    uint64_t refills;        /* records with TRACE_REC_REFILL */
    uint64_t events[TRACE_PSV_EVENT_COUNT]; /* committed or excepting µops with each event */
} trace_totals;

/* Adds one record to the totals, all but its µops' events: trace_totals_add
 * counts those one by one, the fast readers through a trace_psv_counter. */
static inline void trace_totals_add_record(trace_totals *t, const trace_record *r)
{
    if (t->records++ == 0)
        t->first_cycle = r->cycle;
    t->last_cycle = r->cycle;
    t->commits += r->n_commit;
    t->exceptions += (r->flags & TRACE_REC_EXCEPTION) != 0;
    t->dispatched += r->dispatch;
    t->squashed += r->squash;
    t->refills += (r->flags & TRACE_REC_REFILL) != 0;
}

/* Adds one record and its µops to the totals. */
void trace_totals_add(trace_totals *t, const trace_record *r, const trace_uop *uops);

/* Hex digits of a trace's digest. */
#define TRACE_DIGEST_LEN 16

/* The trace's digest: a 64-bit FNV-1a hash of the header's ROB shape and
 * the totals (records, cycles, commits, exceptions, ROB traffic, events),
 * as 16 hex digits. It names the record stream, whatever its format, so
 * that PICS of one trace are known to be (pics_info.trace_digest). */
void trace_digest(const trace_header *h, const trace_totals *t, char out[TRACE_DIGEST_LEN + 1]);

/* True when two totals describe the same records (first and last cycle
 * compared only when there are records), as a native footer must. */
int trace_totals_same(const trace_totals *a, const trace_totals *b);

/* The first field in which two totals differ, as trace_totals_same compares
 * them: its name ("records", "commits", ..., "events[FL-EX]") into `name`
 * and the two values; 0 when they are the same, 1 otherwise. Readers name
 * the field in their messages. */
int trace_totals_difference(const trace_totals *a, const trace_totals *b, char *name, size_t size, uint64_t *va,
                            uint64_t *vb);

/* Trace-wide facts only known once the whole trace was read; native traces
 * keep them in their footer. */
#define TRACE_NOTE_ST_LLC_UNAVAILABLE 0x01u /* source had no load latencies: no ST-LLC */

typedef struct trace_notes {
    uint32_t flags;          /* TRACE_NOTE_* */
    uint64_t counter_wraps;  /* 44-bit TraceDoctor cycle-counter wraps that were unwrapped */
} trace_notes;

/* How a trace was read, for `tea info` and diagnostics. */
typedef struct trace_reader_stats {
    trace_format format;
    int compressed;           /* input was zstd-compressed */
    uint64_t bytes_in;        /* bytes read from the file */
    uint64_t units;           /* tokens (TraceDoctor) or records (native) read */
    uint64_t frames;          /* zstd data frames */
    uint64_t memlat_nonzero;  /* TraceDoctor: committing slots with memlat > 0 */
    uint64_t dcache_misses;   /* TraceDoctor: committing slots with DCACHE_MISS */
    uint64_t index_resyncs;   /* TraceDoctor: tokens whose ROB indices disagreed with the stream */
    trace_notes notes;        /* wraps, ST-LLC availability (complete at end of stream) */
} trace_read_stats;

/* Options for headerless (TraceDoctor) input; ignored for native traces,
 * whose header decides. Zero fields take the TRACE_DEFAULT_* values. */
typedef struct trace_open_options {
    unsigned llc_latency;   /* ST-LLC memlat threshold (cycles) */
    unsigned rob_size;      /* ROB entries the head/tail indices wrap at */
    uint64_t clock_hz;      /* core clock to report */
    unsigned threads;       /* threads that may decompress the frames of a multi-frame
                               compressed TraceDoctor file at once (0: as many as
                               the process's thread budget has room for) */
} trace_open_options;

typedef struct trace_reader trace_reader;

/* Opens `path` ("-" for standard input), detects its format and reads the
 * header. Errors: TEA_ERR_IO (cannot open/read), TEA_ERR_FORMAT (empty file,
 * unknown content, bad magic or version), each with a message naming the file. */
int trace_reader_open(trace_reader **out, const char *path, const trace_open_options *opts);

/* Opens the `size` bytes at `data`, a whole trace file's content, as
 * trace_reader_open opens a file: messages call it `name` where they would
 * name the file, and the records, header, objects, totals, statistics and
 * errors are those of a file of those bytes named `name`. The bytes are
 * not copied and must stay unchanged until trace_reader_close. For
 * harnesses and tests that hold a trace in memory. */
int trace_reader_open_memory(trace_reader **out, const void *data, size_t size, const char *name,
                             const trace_open_options *opts);

/* The trace's header (TraceDoctor: the defaults and options). */
const trace_header *trace_reader_header(const trace_reader *r);

/* Fills `batch` (after clearing it) with the next records. At the end of the
 * trace batch->count is 0. Every record returned has passed the window checks
 * of trace_record_check and has a cycle above the previous one. Errors:
 * TEA_ERR_FORMAT or TEA_ERR_IO with a message naming the file and the byte,
 * token or record offset. After an error the reader only allows close.
 * The batch must come from trace_batch_init: with the background decoder
 * (trace_reader_set_background) the reader may trade its buffers for others
 * of the same capacity, which trace_batch_free frees as usual; pointers into
 * a batch are only valid until the next read. How many records a batch
 * holds is not part of the contract (only their order is). */
int trace_reader_read(trace_reader *r, trace_batch *batch);

/* Receives each TraceDoctor token of a trace, 64 packed bytes as in the
 * file (trace_td_token_unpack in trace/token.h reads them). */
typedef void (*trace_token_sink)(void *ctx, const uint8_t *token);

/*
 * Hands every token of a TraceDoctor trace to `sink`, in file order, each
 * once, as it is decoded: the tokens decoded at open at once, the others
 * during trace_reader_read. Tokens are always decoded on the caller's
 * thread (the background thread only reads and decompresses them), so the
 * sink runs there, inside these calls, and may update what the caller
 * uses between reads. Tokens past a format error are not handed out. For
 * samplers that read tokens themselves (tea/tdsampler.h). Errors:
 * TEA_ERR_UNSUPPORTED for a native trace (it has no tokens), TEA_ERR_USAGE
 * for a NULL sink or after the first read.
 */
int trace_reader_set_token_sink(trace_reader *r, trace_token_sink sink, void *ctx);

/* The format the reader found. */
trace_format trace_reader_format(const trace_reader *r);

/* Chooses whether the reader reads, decompresses, decodes and checks
 * upcoming records on a background thread, a few batches ahead, while the
 * caller works on the current ones (default: on when the machine has more
 * than one processor online). For compressed TraceDoctor tokens, whose
 * decompression costs more than their decoding, the thread only
 * decompresses ahead and the caller decodes. Records, totals, statistics and errors are the
 * same either way, and trace_reader_totals and trace_reader_stats describe
 * the records returned so far. The background batches take the capacity of
 * the batch passed to the first trace_reader_read; reads with another
 * capacity continue synchronously once the records decoded ahead are handed
 * out (deterministically, but batches may end elsewhere, and meanwhile the
 * statistics may lag by up to one background batch). Only effective before
 * the first trace_reader_read. */
void trace_reader_set_background(trace_reader *r, int enabled);

/* Totals of the records returned so far. */
const trace_totals *trace_reader_totals(const trace_reader *r);

/* Statistics of the input read so far, as synchronous reading up to the
 * records returned so far leaves them (never counting input read ahead). */
const trace_read_stats *trace_reader_stats(const trace_reader *r);

/* Stops the background decoder, if any (it finishes the batch in progress,
 * which on a pipe may wait for input), closes the file and frees the reader.
 * Safe on NULL. */
void trace_reader_close(trace_reader *r);

/* Output settings. */
typedef struct trace_write_options {
    trace_format format;       /* TRACE_FORMAT_NATIVE or TRACE_FORMAT_TRACEDOCTOR */
    int level;                 /* zstd level; 0 picks the format's default */
    int raw;                   /* TraceDoctor only: write uncompressed tokens */
    uint32_t frame_records;    /* native only: records per zstd frame; 0 = default */
} trace_write_options;

/* Default zstd levels and frame size. */
#define TRACE_NATIVE_DEFAULT_LEVEL 3
#define TRACE_TRACEDOCTOR_DEFAULT_LEVEL 3
#define TRACE_NATIVE_DEFAULT_FRAME_RECORDS (1u << 18)

typedef struct trace_writer trace_writer;

/* Creates `path` (through a temporary file, see outfile.h) and writes the
 * header. Errors: TEA_ERR_IO, TEA_ERR_UNSUPPORTED (e.g. a commit width the
 * format cannot express), TEA_ERR_USAGE (bad options). */
int trace_writer_open(trace_writer **out, const char *path, const trace_header *h,
                      const trace_write_options *opts);

/* Appends records. They are checked as a reader would check them; a record the
 * format cannot express fails with TEA_ERR_UNSUPPORTED naming its cycle. */
int trace_writer_write(trace_writer *w, const trace_batch *batch);

/* Writes the trailer (native: index and footer with `notes`), moves the file
 * into place and frees the writer. On error nothing is left at `path`. */
int trace_writer_finish(trace_writer *w, const trace_notes *notes);

/* Abandons the output (no file is left behind) and frees the writer. Safe on
 * NULL. */
void trace_writer_abort(trace_writer *w);

/* Totals of what was written so far. */
const trace_totals *trace_writer_totals(const trace_writer *w);

/*
 * The signature the TEA authors' TraceDoctor workers (tracedoctor_tea.cc)
 * print for a µop in their outputs (tea_gold, the samplers' signatureN),
 * folded to the nine-event PSV as a token's slot is: bit 0 (a data-cache
 * miss whose memory latency reached 32 cycles) ST-LLC, bits 2-11 (the
 * token's slot flags) their events, bit 12 (the µop's exception) FL-EX; bit
 * 1 (latency 84) and bits 13-15 (the previous µop's flags) have no PSV bit.
 */
uint16_t trace_td_signature_psv(uint32_t signature);

#endif
