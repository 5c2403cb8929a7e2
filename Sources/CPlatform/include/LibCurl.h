#ifndef SAVEVAULT_LIBCURL_H
#define SAVEVAULT_LIBCURL_H

// libcurl, loaded on first use rather than linked: a command that never speaks HTTP (most of
// them) then maps none of libcurl and the ~25 libraries it links (TLS, Kerberos, LDAP, …).
// Only curl.h's types and constants are used here; nothing links against libcurl itself.
#include <curl/curl.h>

/// Loads libcurl.so.4 and initialises it, once per process (later calls return the first
/// outcome). NULL when loaded; otherwise why not (the loader's own words, or the missing
/// function), a string that lives as long as the process.
const char *savevault_curl_load(void);

// The functions below call libcurl's; call them only after savevault_curl_load returned NULL.
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: each kind of
// argument has its own typed entry.

CURL *savevault_curl_easy_init(void);
void savevault_curl_easy_cleanup(CURL *handle);
void savevault_curl_easy_reset(CURL *handle);
CURLcode savevault_curl_easy_perform(CURL *handle);
const char *savevault_curl_easy_strerror(CURLcode code);
CURLcode savevault_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
struct curl_slist *savevault_curl_slist_append(struct curl_slist *list, const char *text);
void savevault_curl_slist_free_all(struct curl_slist *list);

CURLcode savevault_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode savevault_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
/// A pointer option: a string (copied by libcurl), a list, a buffer, or a callback's data.
CURLcode savevault_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value);
/// CURLOPT_WRITEFUNCTION, CURLOPT_READFUNCTION and CURLOPT_HEADERFUNCTION (one signature).
CURLcode savevault_curl_setopt_data_function(CURL *handle, CURLoption option, curl_write_callback function);
CURLcode savevault_curl_setopt_xferinfo_function(CURL *handle, CURLoption option,
                                                 curl_xferinfo_callback function);
CURLcode savevault_curl_setopt_seek_function(CURL *handle, CURLoption option, curl_seek_callback function);

#endif
