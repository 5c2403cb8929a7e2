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

/// When the folder or file at `path` (following symlinks) was made, in ns since 1970, or -1
/// when its filesystem does not record it (`statx`'s birth time on Linux). Swift's Glibc module
/// does not bring in `statx`.
long long savevault_birth_time_ns(const char *path);

#endif
