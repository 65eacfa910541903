// Linked into the self-contained binary only (scripts/build-selfcontained.sh, with --wrap=hypot,hypotf,arc4random):
// a binary linked on Debian 12 (glibc 2.36) would otherwise not start on glibc 2.34 (RHEL 9 and its kin,
// manylinux_2_34).
// - glibc 2.35 gave hypot and hypotf a new symbol version. These call the versions every glibc since 2.2.5
//   has, looked up once with dlvsym (a .symver reference would be wrapped back to itself: --wrap matches
//   names without their version); the two run the same computation and differ only in how errors are
//   reported (errno through the old SVID wrapper), so the results are the same numbers.
// - arc4random came in glibc 2.36; FFmpeg's configure finds it (av_get_random_seed). This one reads the
//   same kernel source, getrandom (glibc 2.25), and /dev/urandom where the kernel lacks getrandom, as glibc's
//   own does; with neither it aborts, as glibc's does.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>

static void *old_version(const char *name) {
    void *f = dlvsym(RTLD_DEFAULT, name, "GLIBC_2.2.5");
    if (f == NULL) { fprintf(stderr, "handpose: this glibc has no %s@GLIBC_2.2.5\n", name); abort(); }
    return f;
}

static double (*hypot_2_2_5)(double, double);
static float (*hypotf_2_2_5)(float, float);

double __wrap_hypot(double x, double y) {
    double (*f)(double, double) = __atomic_load_n(&hypot_2_2_5, __ATOMIC_ACQUIRE);
    if (f == NULL) { f = (double (*)(double, double))old_version("hypot"); __atomic_store_n(&hypot_2_2_5, f, __ATOMIC_RELEASE); }
    return f(x, y);
}

float __wrap_hypotf(float x, float y) {
    float (*f)(float, float) = __atomic_load_n(&hypotf_2_2_5, __ATOMIC_ACQUIRE);
    if (f == NULL) { f = (float (*)(float, float))old_version("hypotf"); __atomic_store_n(&hypotf_2_2_5, f, __ATOMIC_RELEASE); }
    return f(x, y);
}

uint32_t __wrap_arc4random(void) {
    uint32_t value;
    while (getrandom(&value, sizeof value, 0) != (ssize_t)sizeof value) {
        if (errno == EINTR || errno == EAGAIN) continue;
        FILE *urandom = fopen("/dev/urandom", "rb");
        size_t got = urandom ? fread(&value, sizeof value, 1, urandom) : 0;
        if (urandom) fclose(urandom);
        if (got != 1) abort();
        break;
    }
    return value;
}
