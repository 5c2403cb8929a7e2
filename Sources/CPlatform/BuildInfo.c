#include "CPlatform.h"

// `make dist` builds with -Xcc -DSAVEVAULT_VERSION=\"...\" -Xcc -DSAVEVAULT_COMMIT=\"...\".
#ifndef SAVEVAULT_VERSION
#define SAVEVAULT_VERSION "dev"
#endif
#ifndef SAVEVAULT_COMMIT
#define SAVEVAULT_COMMIT "unknown"
#endif

const char *savevault_build_version(void) { return SAVEVAULT_VERSION; }

const char *savevault_build_commit(void) { return SAVEVAULT_COMMIT; }
