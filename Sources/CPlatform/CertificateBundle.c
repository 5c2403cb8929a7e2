#include "CPlatform.h"

#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <dlfcn.h>
#include <pthread.h>

// On Linux, URLSession speaks HTTP through libcurl and offers no way to name the CA bundle:
// libcurl uses the path compiled into it (Debian's /etc/ssl/certs/ca-certificates.crt for the
// libcurl a release bundle carries), which is missing on Fedora, and it ignores SSL_CERT_FILE.
// So every easy handle is given the bundle SaveVault chose as it is created: this definition
// of curl_easy_init is the one the executable's own code calls, and it calls libcurl's, found
// by dlsym(RTLD_NEXT). That holds where Foundation is linked into the executable (release
// builds, --static-swift-stdlib: the release bundle, `make`); a build against the toolchain's
// shared Foundation (`swift build`) calls libcurl's own, versioned symbol and keeps libcurl's
// default.

typedef void CURL;
typedef int CURLcode;
typedef int CURLoption;

// From curl.h (stable ABI): CURLOPTTYPE_STRINGPOINT (10000) + 65 and + 97.
enum { SAVEVAULT_CURLOPT_CAINFO = 10065, SAVEVAULT_CURLOPT_CAPATH = 10097 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *bundle_file;
static char *bundle_directory;

static char *copy(const char *text) { return text == NULL ? NULL : strdup(text); }

void savevault_use_ca_bundle(const char *file, const char *directory) {
  pthread_mutex_lock(&lock);
  free(bundle_file);
  free(bundle_directory);
  bundle_file = copy(file);
  bundle_directory = copy(directory);
  pthread_mutex_unlock(&lock);
}

CURL *curl_easy_init(void) {
  // Looked up on each call: a handle is made per request, and dlsym is cheap beside one.
  CURL *(*libcurl_init)(void) = (CURL * (*)(void)) dlsym(RTLD_NEXT, "curl_easy_init");
  CURLcode (*setopt)(CURL *, CURLoption, ...) =
      (CURLcode(*)(CURL *, CURLoption, ...))dlsym(RTLD_NEXT, "curl_easy_setopt");
  if (libcurl_init == NULL || setopt == NULL) {
    return NULL;
  }
  CURL *handle = libcurl_init();
  if (handle == NULL) {
    return NULL;
  }
  pthread_mutex_lock(&lock);
  // libcurl copies the strings.
  if (bundle_file != NULL) {
    setopt(handle, SAVEVAULT_CURLOPT_CAINFO, bundle_file);
  }
  if (bundle_directory != NULL) {
    setopt(handle, SAVEVAULT_CURLOPT_CAPATH, bundle_directory);
  }
  pthread_mutex_unlock(&lock);
  return handle;
}

#else

// Elsewhere (macOS) HTTPS trusts the system's store; there is nothing to set.
void savevault_use_ca_bundle(const char *file, const char *directory) {
  (void)file;
  (void)directory;
}

#endif
