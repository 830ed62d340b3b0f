/*
 * lost.c: the names of the reasons a sample is lost (see lost.h).
 */
#include "lost.h"

static const char *const lost_names[TEA_LOST_REASONS] = { "busy", "squashed", "empty", "exception", "end" };

const char *tea_lost_name(enum tea_lost_reason reason)
{
    return (unsigned)reason < TEA_LOST_REASONS ? lost_names[reason] : "?";
}
