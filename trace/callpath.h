/*
 * callpath.h: calling contexts (docs/semantics.md, "Calling contexts").
 *
 * A calling context is a path of calls from the root: node 0 is the root
 * (no caller known), and every other node is (parent node, call-site
 * address, callee entry). Nodes are interned: the same triple is the same
 * id, and a parent's id is always smaller than its children's, so a table
 * read in id order can be checked and rebuilt in one pass.
 *
 * The tracker rebuilds contexts from a stream of committed instructions in
 * program order, as FirePerf does from a commit trace: it keeps a shadow
 * call stack, pushed by calls and popped by returns, and follows the rules
 * of docs/semantics.md for returns that skip frames (longjmp, exceptions),
 * tail calls, jumps into other functions and control that arrives without
 * a control-transfer instruction (signal handlers). It learns what each
 * address holds from a classifier (binary/ decodes the program's code),
 * asked once per distinct address.
 */
#ifndef TEA_TRACE_CALLPATH_H
#define TEA_TRACE_CALLPATH_H

#include "trace/record.h"

#include <stddef.h>
#include <stdint.h>

/* The root context: no call known (a flat PICS's every cell). */
#define TRACE_CONTEXT_ROOT 0u
/* Deepest context the tracker creates: calls below this depth (recursion
 * deeper than it) are counted in the context at this depth. */
#define TRACE_CONTEXT_MAX_DEPTH 256u
#define TRACE_CONTEXT_MAX_DEPTH_TEXT "256"
/* Most contexts one table holds (ids fit a PICS cell's 32 bits). */
#define TRACE_CONTEXT_MAX 0x7fffffffu

typedef struct trace_context {
    uint64_t site;   /* address of the call instruction in the parent (0: unknown caller) */
    uint64_t entry;  /* address control entered the callee at */
    uint32_t parent; /* parent node's id, smaller than this node's */
    uint32_t depth;  /* calls from the root (the root: 0) */
} trace_context;

/* The calling-context tree: nodes[0] is the root once initialized. */
typedef struct trace_contexts {
    trace_context *nodes;
    uint32_t count;       /* nodes in use, the root included */
    uint32_t capacity;    /* nodes allocated */
    uint32_t *index;      /* open-addressing table of node ids + 1 (0: empty) */
    size_t index_slots;   /* a power of two */
} trace_contexts;

/* A table holding the root alone. 0 or TEA_ERR_NOMEM. */
int trace_contexts_init(trace_contexts *t);

/* Frees the table's memory and zeroes it (freeing a zeroed table is a no-op). */
void trace_contexts_free(trace_contexts *t);

/* The id of node (parent, site, entry), created when new. Errors:
 * TEA_ERR_NOMEM, TEA_ERR_USAGE (parent not in the table, or the table
 * full). */
int trace_contexts_intern(trace_contexts *t, uint32_t parent, uint64_t site, uint64_t entry, uint32_t *id);

/* Replaces `t` with the table of `count` nodes in id order (the root
 * first, each parent before its children, no node twice: a trace's tree,
 * trace_run.contexts). 0, TEA_ERR_NOMEM, or TEA_ERR_FORMAT when the nodes
 * break those rules. */
int trace_contexts_from_nodes(trace_contexts *t, const trace_context *nodes, uint32_t count);

/* Replaces dst with a copy of src. 0 or TEA_ERR_NOMEM. */
int trace_contexts_copy(trace_contexts *dst, const trace_contexts *src);

/* What an instruction is to the tracker. */
enum trace_insn_kind {
    TRACE_INSN_OTHER = 0,  /* no control transfer, or one the classifier could not decode */
    TRACE_INSN_CALL = 1,   /* pushes a return address: x86 call; RISC-V jal/jalr with rd ra or t0 */
    TRACE_INSN_RETURN = 2, /* returns through the pushed address: x86 ret; RISC-V jalr x0 through ra or t0 */
    TRACE_INSN_JUMP = 3    /* any other branch or jump, direct or indirect, conditional or not */
};

typedef struct trace_insn_class {
    uint64_t function; /* start of the function holding the address (0: none known) */
    uint8_t kind;      /* enum trace_insn_kind */
    uint8_t length;    /* bytes (0: unknown; the next instruction is then never a fall-through) */
    uint64_t target;   /* a direct call's or jump's target (0: indirect, or not a transfer) */
} trace_insn_class;

/* The classifier: what the instruction at `pc` is. Returns 0, or a negative
 * error the tracker passes on. */
typedef int (*trace_classify_fn)(void *arg, uint64_t pc, trace_insn_class *out);

typedef struct trace_callpath trace_callpath;

/* A tracker adding contexts to `tree` (initialized, owned by the caller,
 * who must keep it alive), asking `classify(arg, pc)` once per distinct
 * address. 0 or TEA_ERR_NOMEM. */
int trace_callpath_create(trace_callpath **out, trace_contexts *tree, trace_classify_fn classify, void *arg);

void trace_callpath_free(trace_callpath *cp);

/* The context of the next committed instruction at `pc` (after the previous
 * one the tracker was given), into *ctx. A µop with the PC of the previous
 * one is the same instruction (another of its µops, or a repeated string
 * instruction), except after a return (`call f; ret` recursion returns to
 * a return at the same address). 0, TEA_ERR_NOMEM, or the classifier's error. */
int trace_callpath_step(trace_callpath *cp, uint64_t pc, uint32_t *ctx);

/* A sampled trace's windows (the last cycle of each, increasing; kept by
 * the caller): trace_callpath_batch starts each window from an empty
 * stack, its first instruction's function under the root, since the
 * fast-forward before it made calls and returns the trace does not hold. */
void trace_callpath_set_windows(trace_callpath *cp, const uint64_t *ends, size_t count);

/* As trace_callpath_set_windows, for a recorder whose windows end while
 * it runs: `ends` (which may have moved) holds the windows ended so far,
 * and the tracker stays in the window it is in. */
void trace_callpath_update_windows(trace_callpath *cp, const uint64_t *ends, size_t count);

/* Where a window's stack comes from (trace_callpath_set_stacks): the
 * return addresses of the frames live at window `window`'s first
 * instruction (0: the first window), innermost first, into *returns and
 * *count (count 0: none known; the window starts from an empty stack).
 * The array stays the caller's and must live until the next call. 0 or an
 * error the tracker passes on. */
typedef int (*trace_stack_fn)(void *arg, size_t window, const uint64_t **returns, size_t *count);

/* A sampled recording's windows start from the stacks `stacks` gives
 * (the recording tool unwinds the program's stack where each window
 * starts) instead of an empty one: each window's first instruction gets
 * the frames those return addresses imply, as if the tracker had followed
 * the calls (docs/semantics.md, "Calling contexts"). NULL: empty stacks. */
void trace_callpath_set_stacks(trace_callpath *cp, trace_stack_fn stacks, void *arg);

/* Replaces the shadow stack with the frames live at the instruction at
 * `pc`: `returns` (innermost first) are the addresses their calls will
 * return to. Each return address's call instruction is found by decoding
 * backwards; the frames from the first one without a call (or all of
 * them) outwards are dropped, the outermost kept being the bottom frame
 * under the root. The next trace_callpath_step at `pc` is that
 * instruction. 0, TEA_ERR_NOMEM, or the classifier's error. */
int trace_callpath_seed(trace_callpath *cp, uint64_t pc, const uint64_t *returns, size_t count);

/* The context an instruction at `pc` would have next, without moving the
 * tracker (an excepting µop: it runs again, or never). As
 * trace_callpath_step otherwise. */
int trace_callpath_peek(trace_callpath *cp, uint64_t pc, uint32_t *ctx);

/* Sets the context of every µop of `batch` (records in order): committed
 * µops through trace_callpath_step, an excepting one through
 * trace_callpath_peek. 0 or an error of trace_callpath_step. */
int trace_callpath_batch(trace_callpath *cp, trace_batch *batch);

/* The current depth of the shadow stack (frames, the bottom one included;
 * 0 before the first instruction): for tests. */
size_t trace_callpath_depth(const trace_callpath *cp);

#endif
