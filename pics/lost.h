/*
 * lost.h: why a sampler's sample point yields no sample.
 *
 * A sampler concept: the cycle samplers (TEA, NCI-TEA) lose a point only
 * when the trace ends first; the tagging samplers (IBS, SPE, RIS) also when
 * their unit is busy or the tagged entry never commits. Samplers count
 * their losses per reason; the PICS file (pics/pics_file.h) stores the
 * counts under these names ("lost.busy" ...), in this order.
 */
#ifndef TEA_PICS_LOST_H
#define TEA_PICS_LOST_H

enum pics_lost_reason {
    PICS_LOST_BUSY = 0,    /* the unit was busy with an earlier tag (IBS, RIS) or a collision (SPE) */
    PICS_LOST_SQUASHED,    /* the tagged µop was squashed */
    PICS_LOST_EMPTY,       /* the tagged ROB entry held no µop */
    PICS_LOST_EXCEPTION,   /* the tagged µop excepted instead of committing */
    PICS_LOST_END,         /* the trace ended before the sample resolved */
    PICS_LOST_REASONS
};

/* "busy", "squashed", "empty", "exception", "end"; "?" out of range. */
const char *pics_lost_name(enum pics_lost_reason reason);

#endif
