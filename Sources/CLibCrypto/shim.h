#ifndef SAVEVAULT_CLIBCRYPTO_SHIM_H
#define SAVEVAULT_CLIBCRYPTO_SHIM_H

/* SHA-256 uses the low-level SHA256_* functions (deprecated in OpenSSL 3 but kept): unlike
   EVP they need no provider set-up, which costs a short command about a millisecond. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

/* mallopt, to have glibc return large freed buffers to the system (S3Container). */
#if defined(__linux__)
#include <features.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#endif

#endif
