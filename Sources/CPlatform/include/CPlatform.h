#ifndef SAVEVAULT_CPLATFORM_H
#define SAVEVAULT_CPLATFORM_H

/// The version this binary was built as (`make dist` passes it in; "dev" otherwise).
const char *savevault_build_version(void);

/// The commit this binary was built from, with "-dirty" when the tree had changes
/// ("unknown" when the build did not say).
const char *savevault_build_commit(void);

/// The CA bundle that every HTTPS connection made from now on trusts, instead of the path
/// compiled into the libcurl the binary runs with (a bundled Debian libcurl looks only in
/// Debian's place). NULL leaves libcurl's own default. The string is copied.
void savevault_use_ca_bundle(const char *file, const char *directory);

#endif
