#ifndef HANDPOSE_PROCESS_ARGUMENTS_H
#define HANDPOSE_PROCESS_ARGUMENTS_H

/// The argc and argv the process was started with, saved before main by a constructor (glibc hands
/// constructors of the executable argc, argv and envp). Swift's CommandLine.arguments reads
/// /proc/self/cmdline on Linux, which bare chroots and some HPC sandboxes lack. 0 and NULL where the C
/// library did not pass them.
int handpose_saved_argc(void);
char *const *handpose_saved_argv(void);

#endif
