// Linux calls Swift cannot make directly: prctl is variadic, and the loader's link map and
// auxiliary vector are not part of the Glibc module.
#ifndef CARREL_LINUX_SHIM_H
#define CARREL_LINUX_SHIM_H
#ifdef __linux__
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <link.h>
#include <sys/auxv.h>
#include <sys/prctl.h>

/// PR_SET_DUMPABLE: 0 forbids ptrace attach by the same user, /proc/PID/mem and core dumps.
static inline int carrel_set_dumpable(int dumpable) { return prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0); }
static inline int carrel_get_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }

/// Where the dynamic loader is mapped (0 for a static executable).
static inline unsigned long carrel_loader_base(void) { return getauxval(AT_BASE); }

/// The objects dl_iterate_phdr lists (the main namespace only) and the loader's global
/// counters of objects ever added and removed (every namespace).
struct carrel_link_tally { unsigned long listed; unsigned long long adds; unsigned long long subs; };

static int carrel_link_tally_one(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct carrel_link_tally *tally = (struct carrel_link_tally *)data;
    tally->listed += 1;
    tally->adds = info->dlpi_adds;
    tally->subs = info->dlpi_subs;
    return 0;
}

static inline struct carrel_link_tally carrel_link_tally(void) {
    struct carrel_link_tally tally = {0, 0, 0};
    dl_iterate_phdr(carrel_link_tally_one, &tally);
    return tally;
}
#else
static inline int carrel_set_dumpable(int dumpable) { (void)dumpable; return 0; }
static inline int carrel_get_dumpable(void) { return 1; }
static inline unsigned long carrel_loader_base(void) { return 0; }
struct carrel_link_tally { unsigned long listed; unsigned long long adds; unsigned long long subs; };
static inline struct carrel_link_tally carrel_link_tally(void) { struct carrel_link_tally t = {0, 0, 0}; return t; }
#endif
#endif
