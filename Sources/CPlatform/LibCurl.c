#include "LibCurl.h"

#include <dlfcn.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>

// libcurl's functions, as dlsym finds them in the library loaded.
static struct {
  CURLcode (*global_init)(long flags);
  CURL *(*easy_init)(void);
  void (*easy_cleanup)(CURL *handle);
  void (*easy_reset)(CURL *handle);
  CURLcode (*easy_perform)(CURL *handle);
  const char *(*easy_strerror)(CURLcode code);
  CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
  CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
  struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
  void (*slist_free_all)(struct curl_slist *list);
} curl;

static pthread_once_t loading = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
  // The soname every Linux distribution ships libcurl 7 and 8 under. From the executable,
  // dlopen searches the executable's RUNPATH first, so a release bundle finds its own copy.
  void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    const char *reason = dlerror();
    snprintf(failure, sizeof failure, "%s", reason != NULL ? reason : "libcurl.so.4 cannot be loaded");
    return;
  }
  struct {
    const char *name;
    void **slot;
  } symbols[] = {
      {"curl_global_init", (void **)&curl.global_init},
      {"curl_easy_init", (void **)&curl.easy_init},
      {"curl_easy_cleanup", (void **)&curl.easy_cleanup},
      {"curl_easy_reset", (void **)&curl.easy_reset},
      {"curl_easy_perform", (void **)&curl.easy_perform},
      {"curl_easy_strerror", (void **)&curl.easy_strerror},
      {"curl_easy_getinfo", (void **)&curl.easy_getinfo},
      {"curl_easy_setopt", (void **)&curl.easy_setopt},
      {"curl_slist_append", (void **)&curl.slist_append},
      {"curl_slist_free_all", (void **)&curl.slist_free_all},
  };
  for (size_t index = 0; index < sizeof symbols / sizeof symbols[0]; index++) {
    *symbols[index].slot = dlsym(library, symbols[index].name);
    if (*symbols[index].slot == NULL) {
      snprintf(failure, sizeof failure, "libcurl.so.4 has no %s", symbols[index].name);
      return;
    }
  }
  // With CURLOPT_NOSIGNAL set, libcurl leaves SIGPIPE alone, and a server closing a TLS
  // connection while a body is being sent would kill the process without a word (older libcurl
  // and TLS libraries write to the socket without MSG_NOSIGNAL). Only a command that speaks
  // HTTP gets here; the write then fails with EPIPE and is reported.
  signal(SIGPIPE, SIG_IGN);
  // Not thread-safe in older libcurl: done here, once, before any handle exists.
  CURLcode code = curl.global_init(CURL_GLOBAL_DEFAULT);
  if (code != CURLE_OK) {
    snprintf(failure, sizeof failure, "libcurl did not start: %s", curl.easy_strerror(code));
  }
}

const char *savevault_curl_load(void) {
  pthread_once(&loading, load);
  return failure[0] != '\0' ? failure : NULL;
}

CURL *savevault_curl_easy_init(void) { return curl.easy_init(); }

void savevault_curl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }

void savevault_curl_easy_reset(CURL *handle) { curl.easy_reset(handle); }

CURLcode savevault_curl_easy_perform(CURL *handle) { return curl.easy_perform(handle); }

const char *savevault_curl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }

CURLcode savevault_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
  return curl.easy_getinfo(handle, info, value);
}

struct curl_slist *savevault_curl_slist_append(struct curl_slist *list, const char *text) {
  return curl.slist_append(list, text);
}

void savevault_curl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLcode savevault_curl_setopt_long(CURL *handle, CURLoption option, long value) {
  return curl.easy_setopt(handle, option, value);
}

CURLcode savevault_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
  return curl.easy_setopt(handle, option, value);
}

CURLcode savevault_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
  return curl.easy_setopt(handle, option, value);
}

CURLcode savevault_curl_setopt_data_function(CURL *handle, CURLoption option, curl_write_callback function) {
  return curl.easy_setopt(handle, option, function);
}

CURLcode savevault_curl_setopt_xferinfo_function(CURL *handle, CURLoption option,
                                                 curl_xferinfo_callback function) {
  return curl.easy_setopt(handle, option, function);
}

CURLcode savevault_curl_setopt_seek_function(CURL *handle, CURLoption option, curl_seek_callback function) {
  return curl.easy_setopt(handle, option, function);
}
