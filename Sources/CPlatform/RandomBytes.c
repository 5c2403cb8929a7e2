#if defined(__linux__)
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

// Debian 12's libarchive calls arc4random_buf, which glibc has only since 2.36. The release
// bundle clears that symbol's version in its copy of libarchive (release/dist.sh), so that the
// call is served by this definition on every system, and the bundle runs on glibc 2.35
// (Ubuntu 22.04) as well. Glibc's contract: bytes from the kernel's generator; it never fails.
void arc4random_buf(void *buffer, size_t length) {
  unsigned char *at = buffer;
  while (length > 0) {
    ssize_t got = getrandom(at, length, 0);
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      abort();
    }
    at += got;
    length -= (size_t)got;
  }
}
#endif
