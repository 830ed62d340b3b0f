/*
 * stats.h: the mean of a few values and its 95 % confidence interval, from
 * Student's t distribution (seeds of a sampler, windows of a sampled run).
 *
 * A sample accumulates values with Welford's update (no cancellation when
 * the values are close together, as errors over seeds are). The interval of
 * the mean is mean ± t(0.975, n - 1) · s / sqrt(n), s the sample standard
 * deviation: two-sided 95 %, exact t quantiles for up to 30 degrees of
 * freedom, a Cornish-Fisher expansion of the normal quantile beyond (within
 * 10^-4 of the exact quantile).
 */
#ifndef TEA_COMMON_STATS_H
#define TEA_COMMON_STATS_H

#include <stddef.h>

typedef struct stats_sample {
    size_t n;
    long double mean;   /* of the values so far */
    long double m2;     /* sum of squared deviations from the mean */
} stats_sample;

/* Adds one value (finite). Start from all zeros. */
void stats_add(stats_sample *s, double value);

/* The mean of the values so far; NaN for none. */
double stats_mean(const stats_sample *s);

/* The sample standard deviation (n - 1 in the denominator); NaN for n < 2. */
double stats_stddev(const stats_sample *s);

/* The 97.5 % quantile of Student's t with `df` degrees of freedom (df >= 1). */
double stats_t975(size_t df);

/* Half the width of the two-sided 95 % interval of the mean; NaN for n < 2. */
double stats_half_interval95(const stats_sample *s);

#endif
