#define _GNU_SOURCE
#include "CPlatform.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

long long savevault_birth_time_ns(const char *path) {
#if defined(__linux__) && defined(STATX_BTIME)
  struct statx info;
  if (statx(AT_FDCWD, path, 0, STATX_BTIME, &info) != 0) {
    return -1;
  }
  if (!(info.stx_mask & STATX_BTIME)) {
    return -1;
  }
  return (long long)info.stx_btime.tv_sec * 1000000000LL + (long long)info.stx_btime.tv_nsec;
#elif defined(__APPLE__)
  struct stat info;
  if (stat(path, &info) != 0) {
    return -1;
  }
  return (long long)info.st_birthtimespec.tv_sec * 1000000000LL + (long long)info.st_birthtimespec.tv_nsec;
#else
  (void)path;
  errno = ENOSYS;
  return -1;
#endif
}
