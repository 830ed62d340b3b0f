/*
 * stats.c: the mean's 95 % interval by Student's t (see stats.h).
 */
#include "stats.h"

#include <assert.h>
#include <math.h>

/* t(0.975, df) for df = 1 .. 30 (the usual tables, three decimals). */
static const double T975[] = { 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                               2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };
#define T975_TABLE (sizeof T975 / sizeof T975[0])
/* The normal distribution's 97.5 % quantile. */
#define Z975 1.959963984540054

void stats_add(stats_sample *s, double value)
{
    long double delta = (long double)value - s->mean;
    s->n++;
    s->mean += delta / (long double)s->n;
    s->m2 += delta * ((long double)value - s->mean);
    assert(s->m2 >= -1e-12L);
}

double stats_mean(const stats_sample *s)
{
    return s->n ? (double)s->mean : NAN;
}

double stats_stddev(const stats_sample *s)
{
    if (s->n < 2)
        return NAN;
    return (double)sqrtl((s->m2 > 0 ? s->m2 : 0) / (long double)(s->n - 1));
}

double stats_t975(size_t df)
{
    double z = Z975, d;
    assert(df >= 1);
    if (df <= T975_TABLE)
        return T975[df - 1];
    /* Cornish-Fisher: t = z + (z^3 + z) / 4d + (5z^5 + 16z^3 + 3z) / 96d^2 */
    d = (double)df;
    return z + (z * z * z + z) / (4 * d) + (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

double stats_half_interval95(const stats_sample *s)
{
    if (s->n < 2)
        return NAN;
    return stats_t975(s->n - 1) * stats_stddev(s) / sqrt((double)s->n);
}
