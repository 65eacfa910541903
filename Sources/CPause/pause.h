// The spin-wait hint Swift cannot ask for itself: tells the core this is a busy-wait loop, so it stops
// speculating ahead through the loop (x86 PAUSE also lets a hyper-threaded sibling run, and avoids the
// memory-order mis-speculation flush when the awaited store lands); arm64 YIELD is the same hint.
#pragma once

static inline __attribute__((always_inline)) void handpose_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ volatile("yield" ::: "memory");
#endif
}
