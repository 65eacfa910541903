#include <cpuinfo.h>
