// A software prefetch for the kernels, which Swift cannot ask for itself: a hint to bring the cache line
// at `p` towards the core for reading. It never faults, whatever the address.
#pragma once

static inline __attribute__((always_inline)) void handpose_prefetch(const void *p) {
    __builtin_prefetch(p, 0, 3);
}
