#ifndef SAVEVAULT_CPLATFORM_H
#define SAVEVAULT_CPLATFORM_H

/// The version this binary was built as (`make dist` passes it in; "dev" otherwise).
const char *savevault_build_version(void);

/// The commit this binary was built from, with "-dirty" when the tree had changes
/// ("unknown" when the build did not say).
const char *savevault_build_commit(void);

/// The filesystem type (`statfs`'s magic number) of the file open at `fd`, or -1 with errno
/// set (Linux; -1 elsewhere). Swift's Glibc module does not bring in `sys/statfs.h`.
long long savevault_filesystem_type(int fd);

#endif
