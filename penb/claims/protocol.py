"""The grading protocol in force and its history (``penb.claims.grading``)."""
PROTOCOL = 2                     # the grading protocol in force
PROTOCOLS = {
    1: "percentile bootstrap intervals over seeds; an effect not shown counted as absent (not reproduced)",
    2: "Student-t intervals over seeds; not reproduced only when the interval excludes the smallest effect of "
       "interest (or lies below 0); otherwise inconclusive, with the seeds 80% power would need; sign agreement "
       "required of trends too (adopted 2026-11-24, for every claim at once, after the protocol-1 verdicts "
       "had been seen)",
}
