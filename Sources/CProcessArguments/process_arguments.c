#include "process_arguments.h"

static int saved_argc;
static char *const *saved_argv;

// glibc calls the executable's constructors with (argc, argv, envp); other C libraries may pass nothing,
// hence the check that argv looks like an argument vector.
__attribute__((constructor)) static void handpose_save_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc > 0 && argv != 0 && argv[argc] == 0) {
        saved_argc = argc;
        saved_argv = argv;
    }
}

int handpose_saved_argc(void) { return saved_argc; }
char *const *handpose_saved_argv(void) { return saved_argv; }
