/*
 * lost.c: the names of the reasons a sample is lost (see lost.h).
 */
#include "lost.h"

static const char *const lost_names[PICS_LOST_REASONS] = { "busy", "squashed", "empty", "exception", "end" };

const char *pics_lost_name(enum pics_lost_reason reason)
{
    return (unsigned)reason < PICS_LOST_REASONS ? lost_names[reason] : "?";
}
