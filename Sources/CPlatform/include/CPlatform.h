#ifndef SAVEVAULT_CPLATFORM_H
#define SAVEVAULT_CPLATFORM_H

/// The version this binary was built as (`make dist` passes it in; "dev" otherwise).
const char *savevault_build_version(void);

/// The commit this binary was built from, with "-dirty" when the tree had changes
/// ("unknown" when the build did not say).
const char *savevault_build_commit(void);

#endif
