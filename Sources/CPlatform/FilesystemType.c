#include "CPlatform.h"

#include <errno.h>
#if defined(__linux__)
#include <sys/vfs.h>
#endif

long long savevault_filesystem_type(int fd) {
#if defined(__linux__)
  struct statfs info;
  if (fstatfs(fd, &info) != 0) {
    return -1;
  }
  return (long long)info.f_type;
#else
  (void)fd;
  errno = ENOSYS;
  return -1;
#endif
}
